package io.sluice.benchmarks;

import io.sluice.benchmarks.RateFixture.SystemUnderTest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;

/**
 * Rate decisions per second, each system beside its baselines on the same Redisson client and Redis, with
 * callers as synchronous threads (run with {@code -t 1}, {@code -t 8}, {@code -t 64}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class RateDecisionBenchmark {
    /** How many keys the traffic is spread over: one hot key, or many picked at random. */
    @Param({"1", "10000"})
    public int keys;

    /** "allowed": the limit is never reached; "rejected": every key is over its limit. */
    @Param({"allowed", "rejected"})
    public String traffic;

    private RateFixture fixture;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        fixture = new RateFixture(systemOf(params), keys, traffic.equals("rejected"));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fixture.close();
    }

    static SystemUnderTest systemOf(BenchmarkParams params) {
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        return switch (method.replace("Async", "")) {
            case "floor" -> SystemUnderTest.FLOOR;
            case "tryAcquire" -> SystemUnderTest.TRY_ACQUIRE;
            case "tryAcquireAndAvailablePermits" -> SystemUnderTest.TRY_ACQUIRE_AND_AVAILABLE;
            case "bucket4j" -> SystemUnderTest.BUCKET4J;
            case "sluice" -> SystemUnderTest.SLUICE;
            default -> throw new IllegalArgumentException(method);
        };
    }

    /** The floor: a trivial script ({@code return 1}) through the same client, one round trip. */
    @Benchmark
    public long floor() {
        return fixture.decide(0);
    }

    /** Redisson's {@code RRateLimiter.tryAcquire()}: a boolean only. */
    @Benchmark
    public long tryAcquire() {
        return fixture.decide(fixture.key());
    }

    /** What a filter with headers needs from {@code RRateLimiter}: {@code tryAcquire()} + {@code availablePermits()}. */
    @Benchmark
    public long tryAcquireAndAvailablePermits() {
        return fixture.decide(fixture.key());
    }

    /** Bucket4j's Redisson (compare-and-swap) proxy manager, {@code tryConsumeAndReturnRemaining(1)}. */
    @Benchmark
    public long bucket4j() {
        return fixture.decide(fixture.key());
    }

    /** Sluice's rate decision: allowed, remaining, reset and retry-after, with the attack shield. */
    @Benchmark
    public long sluice() {
        return fixture.decide(fixture.key());
    }
}
