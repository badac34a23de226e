package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.redisson.CallerClockBackend;
import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prefetch where it meets the other features, through the engine on a real Redis on the test's clock: a token
 * bucket's burst, costs, plans. With prefetch a key admits exactly as without, or fewer while a stock is out, never
 * more; and a request's {@code Remaining} is the same as without.
 */
@Timeout(120)
class PrefetchAcrossFeaturesTest {
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();
    private final MutableClock clock = MutableClock.startingNow();
    private final String prefix = "prefetch-features-" + System.nanoTime();

    private Sluice sluice(String... properties) {
        return sluiceOn(prefix, properties);
    }

    private Sluice sluiceOn(String keyPrefix, String... properties) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", keyPrefix);
        p.put("sluice.backend-timeout", "5s");
        for (int i = 0; i < properties.length; i += 2) p.put(properties[i], properties[i + 1]);
        return Sluice.builder().properties(p).backend(CallerClockBackend.of(redis.client(), clock)).clock(clock).ticker(clock).build();
    }

    /** Decides one request of rule r, then waits for a refill it started (one order of events in one thread). */
    private static Decision admit(Sluice sluice, KeySource keys) {
        Rule rule = sluice.rules().get("r").orElseThrow();
        Decision d = sluice.admit(List.of(rule), keys).toCompletableFuture().join().decisions().get(0);
        EngineProbe.settled(sluice.engine(), rule, "k").join();
        return d;
    }

    /**
     * The numbers: 100 a second, burst 10, prefetch 9. One request takes its token and a stock of 9; 95 ms
     * later (within the 100 ms hold) a burst of 38: the stock's 9 and the 1 token the bucket regained beside it, 10 in
     * all, as a token bucket allows (before: 18, the bucket refilled to 9 while the stock was out).
     */
    @Test
    void aTokenBucketWithPrefetchNeverAdmitsMoreThanItsBurst() {
        try (Sluice s = sluice("sluice.rules.r.rate", "100/1s", "sluice.rules.r.algorithm", "token-bucket",
                "sluice.rules.r.burst", "10", "sluice.rules.r.prefetch", "9")) {
            assertThat(admit(s, KeySource.fixed("k")).allowed()).isTrue();
            clock.advance(Duration.ofMillis(95));
            int admitted = 0;
            for (int i = 0; i < 38; i++) {
                if (admit(s, KeySource.fixed("k")).allowed()) admitted++;
            }
            assertThat(admitted).as("admitted in a burst 95 ms after the first request (burst 10)").isEqualTo(10);
        }
    }

    /**
     * 100 a minute, costs 1 and 7 mixed: with a stock of 10, each request's remaining is what it is without prefetch
     * (before: 56, 55, 55 where it read 57, 56, 55: a cost the stock could not pay was answered by the backend,
     * which does not count the stock this server holds, and the stock's answers used what the backend had said
     * before it).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void remainingWithMixedCostsIsTheSameAsWithoutPrefetch(String algorithm) {
        long[] costs = {1, 1, 7, 1, 7, 7, 1, 1, 7, 1, 7, 1, 1, 7, 7, 1, 7, 7, 7, 1, 7, 7, 1};
        List<Long> with = new ArrayList<>();
        List<Long> without = new ArrayList<>();
        try (Sluice prefetching = sluiceOn(prefix + "-with", "sluice.rules.r.rate", "100/1m", "sluice.rules.r.algorithm", algorithm,
                "sluice.rules.r.prefetch", "10");
             Sluice plain = sluiceOn(prefix + "-without", "sluice.rules.r.rate", "100/1m", "sluice.rules.r.algorithm", algorithm)) {
            for (long cost : costs) {
                Decision a = admit(prefetching, KeySource.fixed("k").withCost(cost));
                Decision b = admit(plain, KeySource.fixed("k").withCost(cost));
                assertThat(a.allowed()).isEqualTo(b.allowed());
                with.add(a.remaining());
                without.add(b.remaining());
            }
        }
        System.out.println("remaining with prefetch " + with + ", without " + without);
        assertThat(with).isEqualTo(without);
        // 11 of cost 1 and 12 of cost 7, all admitted.
        assertThat(without).endsWith(5L);
    }

    /**
     * 20 an hour, pro 40, prefetch 5; free and pro requests alternate on one key: free gets its 10 as without
     * prefetch (before: 8, the other plan's stock of 5 was out of the key while free was decided against its 20).
     */
    @Test
    void plansAlternatingOnOneKeyAdmitAsWithoutPrefetch() {
        try (Sluice s = sluice("sluice.rules.r.rate", "20/1h", "sluice.rules.r.prefetch", "5",
                "sluice.rules.r.plan", "header:X-Plan", "sluice.rules.r.plans.pro.rate", "40/1h")) {
            int free = 0;
            int pro = 0;
            for (int i = 0; i < 10; i++) {
                if (admit(s, KeySource.fixed("k")).allowed()) free++;
                if (admit(s, KeySource.fixed("k").withPlan("pro")).allowed()) pro++;
            }
            assertThat(free).as("free admitted of 10").isEqualTo(10);
            assertThat(pro).as("pro admitted of 10").isEqualTo(10);
        }
    }
}
