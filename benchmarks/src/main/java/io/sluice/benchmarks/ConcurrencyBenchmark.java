package io.sluice.benchmarks;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rule;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A concurrency permit taken and returned per request: Sluice (one round trip in, the release sent without
 * waiting for it) beside Redisson's own {@link RPermitExpirableSemaphore} ({@code tryAcquire} + {@code release},
 * each awaited), on one client and Redis. The limit is never reached.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class ConcurrencyBenchmark {
    private RedissonClient redisson;
    private Sluice sluice;
    private List<Rule> rules;
    private RPermitExpirableSemaphore semaphore;
    private final String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);

    @Setup(Level.Trial)
    public void setUp() {
        redisson = BenchRedis.client();
        sluice = Sluice.builder().backend(RedissonBackendProvider.using(redisson)).properties(Map.of(
                "sluice.key-prefix", prefix,
                "sluice.backend-timeout", "10s",
                "sluice.rules.conc.concurrency", "100000",
                "sluice.rules.conc.key", "global")).build();
        rules = List.of(sluice.rules().get("conc").orElseThrow());
        semaphore = redisson.getPermitExpirableSemaphore(prefix + ":sem");
        semaphore.trySetPermits(100_000);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sluice.close();
        redisson.getKeys().deleteByPattern(prefix + "*");
        redisson.getKeys().deleteByPattern("{" + prefix + "*");
        BenchRedis.release();
    }

    @Benchmark
    public boolean sluiceAcquireRelease() {
        try (Admission a = sluice.admit(rules, KeySource.fixed("*")).toCompletableFuture().join()) {
            return a.allowed();
        }
    }

    @Benchmark
    public boolean redissonSemaphoreAcquireRelease() throws InterruptedException {
        String id = semaphore.tryAcquire(0, 30_000, TimeUnit.MILLISECONDS);
        if (id == null) return false;
        semaphore.release(id);
        return true;
    }
}
