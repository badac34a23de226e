package io.sluice.benchmarks;

import io.github.bucket4j.BandwidthBuilder;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import io.github.bucket4j.redis.redisson.cas.RedissonBasedProxyManager;
import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rule;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The systems a rate decision is compared across, on one Redisson client and one Redis, with the same limit:
 * Redisson's {@link RRateLimiter} (bare {@code tryAcquire}, and {@code tryAcquire} + {@code availablePermits}
 * as a filter needs for its headers), Bucket4j's Redisson proxy manager, and Sluice; plus the floor, a
 * {@code return 1} script. Traffic is "allowed" (a limit never reached: 10^9 per 10 s, so each of 10 000 keys
 * stays alive between its uses while the sliding logs stay small) or "rejected" (1 per hour, exhausted before measuring), over 1 hot key or many
 * keys picked at random.
 */
final class RateFixture implements AutoCloseable {
    enum SystemUnderTest { FLOOR, TRY_ACQUIRE, TRY_ACQUIRE_AND_AVAILABLE, BUCKET4J, BUCKET4J_BATCHING, SLUICE, SLUICE_PREFETCH }

    /** Permits Sluice's prefetching twin takes ahead (when the limit is above it: not under rejected traffic). */
    static final long PREFETCH = 100;

    private final SystemUnderTest system;
    private final int keys;
    private final RedissonClient redisson = BenchRedis.client();
    private final String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    private final long permits;
    private final Duration period;
    private RScript script;
    private RRateLimiter[] limiters;
    private BucketProxy[] buckets;
    private AsyncBucketProxy[] asyncBuckets;
    private Sluice sluice;
    private List<Rule> rules;
    private KeySource[] sluiceKeys;

    RateFixture(SystemUnderTest system, int keys, boolean rejected) {
        this.system = system;
        this.keys = keys;
        this.permits = rejected ? 1 : 1_000_000_000L;
        this.period = rejected ? Duration.ofHours(1) : Duration.ofSeconds(10);
        switch (system) {
            case FLOOR -> script = redisson.getScript(OptionalOptions.defaults().codec(StringCodec.INSTANCE).retryAttempts(0));
            case TRY_ACQUIRE, TRY_ACQUIRE_AND_AVAILABLE -> {
                limiters = new RRateLimiter[keys];
                for (int i = 0; i < keys; i++) {
                    limiters[i] = redisson.getRateLimiter(prefix + ":rrl:" + i);
                    limiters[i].trySetRate(RateType.OVERALL, permits, period);
                }
            }
            case BUCKET4J, BUCKET4J_BATCHING -> {
                RedissonBasedProxyManager<String> manager = Bucket4jRedisson
                        .casBasedBuilder(((Redisson) redisson).getCommandExecutor())
                        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(period))
                        .build();
                BucketConfiguration config = BucketConfiguration.builder()
                        .addLimit(BandwidthBuilder.builder().capacity(permits).refillGreedy(permits, period).build())
                        .build();
                buckets = new BucketProxy[keys];
                asyncBuckets = new AsyncBucketProxy[keys];
                // Bucket4j's batching optimisation: concurrent requests for a bucket go to Redis as one.
                boolean batching = system == SystemUnderTest.BUCKET4J_BATCHING;
                for (int i = 0; i < keys; i++) {
                    var builder = manager.builder();
                    var asyncBuilder = manager.asAsync().builder();
                    if (batching) {
                        builder = builder.withOptimization(Optimizations.batching());
                        asyncBuilder = asyncBuilder.withOptimization(Optimizations.batching());
                    }
                    buckets[i] = builder.build(prefix + ":b4j:" + i, () -> config);
                    asyncBuckets[i] = asyncBuilder.build(prefix + ":b4j:" + i, () -> CompletableFuture.completedFuture(config));
                }
            }
            case SLUICE, SLUICE_PREFETCH -> {
                Map<String, String> p = new HashMap<>(Map.of(
                        "sluice.key-prefix", prefix,
                        "sluice.backend-timeout", "10s",
                        "sluice.rules.bench.rate", permits + "/" + period.toSeconds() + "s",
                        "sluice.rules.bench.key", "user",
                        // -Dsluice.bench.algorithm=token-bucket (etc.): Sluice's decision with another algorithm.
                        "sluice.rules.bench.algorithm", System.getProperty("sluice.bench.algorithm", "sliding-log")));
                if (system == SystemUnderTest.SLUICE_PREFETCH && permits > PREFETCH) p.put("sluice.rules.bench.prefetch", Long.toString(PREFETCH));
                sluice = Sluice.builder().backend(RedissonBackendProvider.using(redisson)).properties(p).build();
                rules = List.of(sluice.rules().get("bench").orElseThrow());
                sluiceKeys = new KeySource[keys];
                for (int i = 0; i < keys; i++) sluiceKeys[i] = KeySource.fixed("user-" + i);
            }
        }
        if (rejected) {
            // Exhaust every key once, as the attack it models has done already.
            for (int i = 0; i < keys; i++) decide(i);
        }
    }

    int key() {
        return keys == 1 ? 0 : ThreadLocalRandom.current().nextInt(keys);
    }

    /** One decision; returns what a caller learns (allowed, or remaining permits). */
    long decide(int i) {
        switch (system) {
            case FLOOR:
                return script.<Long>eval(RScript.Mode.READ_ONLY, "return 1", RScript.ReturnType.LONG);
            case TRY_ACQUIRE:
                return limiters[i].tryAcquire() ? 1 : 0;
            case TRY_ACQUIRE_AND_AVAILABLE:
                return (limiters[i].tryAcquire() ? 1L << 40 : 0) + limiters[i].availablePermits();
            case BUCKET4J:
            case BUCKET4J_BATCHING: {
                ConsumptionProbe p = buckets[i].tryConsumeAndReturnRemaining(1);
                return (p.isConsumed() ? 1L << 40 : 0) + p.getRemainingTokens() + p.getNanosToWaitForRefill();
            }
            case SLUICE:
            case SLUICE_PREFETCH: {
                Admission a = sluice.admit(rules, sluiceKeys[i]).toCompletableFuture().join();
                return (a.allowed() ? 1L << 40 : 0) + a.headline().map(d -> d.remaining() + d.retryAfter().toMillis()).orElse(-1L);
            }
            default:
                throw new IllegalStateException();
        }
    }

    CompletionStage<?> decideAsync(int i) {
        return switch (system) {
            case FLOOR -> script.evalAsync(RScript.Mode.READ_ONLY, "return 1", RScript.ReturnType.LONG);
            case TRY_ACQUIRE -> limiters[i].tryAcquireAsync();
            case TRY_ACQUIRE_AND_AVAILABLE -> limiters[i].tryAcquireAsync()
                    .thenCompose(ok -> limiters[i].availablePermitsAsync().thenApply(left -> ok ? left : -left));
            case BUCKET4J, BUCKET4J_BATCHING -> asyncBuckets[i].tryConsumeAndReturnRemaining(1);
            case SLUICE, SLUICE_PREFETCH -> sluice.admit(rules, sluiceKeys[i]).thenApply(a -> a.headline().orElseThrow());
        };
    }

    /** Redis calls Sluice saved: rejections answered by its attack shield. */
    long shielded() {
        return sluice == null ? 0 : sluice.stats().shieldedRejections();
    }

    long sluiceBackendCalls() {
        return sluice == null ? 0 : sluice.stats().backendCalls();
    }

    @Override
    public void close() {
        if (sluice != null) {
            // A decision that failed open would flatter Sluice: say so.
            var stats = sluice.stats();
            if (stats.failedOpen() + stats.failedClosed() > 0) {
                System.err.println("Sluice decisions decided without Redis: " + stats);
            }
            sluice.close();
        }
        redisson.getKeys().deleteByPattern(prefix + "*");
        redisson.getKeys().deleteByPattern("{" + prefix + "*");
        BenchRedis.release();
    }
}
