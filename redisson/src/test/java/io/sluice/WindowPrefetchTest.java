package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.redisson.CallerClockBackends;
import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code prefetch} on the window counters, on a real Redis with the scripts on the test's clock (so that the test
 * puts a request where it wants in a window): {@code 100/1s}, {@code prefetch=9}, a hold of 100 ms. One server decides
 * exactly as without prefetch (admitted, rejected, {@code Remaining}), across window boundaries too; a stock taken just
 * before its window ends is not used after it; two servers sharing one key never admit more than the limit in a
 * window; and once every stock is handed back or lapsed the key's state in Redis is what it would be without
 * prefetch, its counters alone.
 */
@Timeout(120)
class WindowPrefetchTest {
    private static final long PERIOD_MS = 1_000;
    private static final String RATE = "100/1s";
    private static final String PREFETCH = "9";
    /**
     * Past every stock's hold (100 ms) and the grace its hand-back has (1 s), after which a stock counts as used and
     * leaves the key's state at its next write.
     */
    private static final long LAPSED_MS = 1_200;
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();
    /** At the start of a window of the period, so that the test knows where every instant falls. */
    private final MutableClock clock = new MutableClock(Math.floorDiv(System.currentTimeMillis(), PERIOD_MS) * PERIOD_MS + PERIOD_MS);
    private final String prefix = "window-prefetch-" + System.nanoTime();

    /** A server on the shared Redis with the test's clock as its time, its ticker and the scripts' time. */
    private Sluice server(String algorithm, String prefix, boolean prefetch) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", prefix);
        p.put("sluice.backend-timeout", "5s");
        p.put("sluice.rules.r.rate", RATE);
        p.put("sluice.rules.r.algorithm", algorithm);
        if (prefetch) p.put("sluice.rules.r.prefetch", PREFETCH);
        return Sluice.builder().properties(p).backend(CallerClockBackends.on(redis.client(), clock, Duration.ofSeconds(5)))
                .clock(clock).ticker(clock).build();
    }

    /** Admits one request of {@code key}, then waits for a refill it started: one order of events for one thread. */
    private static Decision admit(Sluice s, String key) {
        Rule rule = s.rules().get("r").orElseThrow();
        Decision d = s.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().join().decisions().get(0);
        EngineProbe.settled(s.engine(), rule, key).join();
        return d;
    }

    /** Moves the clock as it passes on a running server: every hold that ends on the way is swept (handed back). */
    private void advance(long millis, Sluice... servers) {
        long target = clock.millis() + millis;
        while (true) {
            long next = Long.MAX_VALUE;
            for (Sluice s : servers) next = Math.min(next, EngineProbe.nextHoldEnd(s.engine()));
            if (next > target) break;
            if (next > clock.millis()) clock.advance(Duration.ofMillis(next - clock.millis()));
            for (Sluice s : servers) EngineProbe.sweep(s.engine()).join();
        }
        clock.advance(Duration.ofMillis(target - clock.millis()));
    }

    /** A window counter's state without prefetch: its counters alone. */
    private static String counters(String algorithm) {
        return algorithm.equals("fixed-window") ? "\\d+:\\d+" : "\\d+:\\d+:\\d+";
    }

    /** Every Redis value under {@code prefix}: the keys' states (not the servers' announcements of prefetch=auto). */
    private List<String> states(String prefix) {
        List<String> values = new ArrayList<>();
        for (String k : redis.client().getKeys().getKeysByPattern(prefix + "*")) {
            if (k.endsWith(":servers")) continue;
            values.add(redis.client().<String>getBucket(k, StringCodec.INSTANCE).get());
        }
        return values;
    }

    /**
     * The same requests at the same instants on a key with prefetch and on one without: a burst of 120 early in a
     * window, a few in the middle, 30 ms before the window's end, and at the next window's start and later (the
     * sliding window's previous window then weighs in). Every decision is the same, allowed or not, with the same
     * Remaining. Afterwards the key's state holds its counters alone.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fixed-window", "sliding-window"})
    void oneServerDecidesExactlyAsWithoutPrefetch(String algorithm) {
        try (Sluice with = server(algorithm, prefix + ":with", true);
             Sluice without = server(algorithm, prefix + ":without", false);
             Sluice beside = server(algorithm, prefix + ":with", false)) {
            // Milliseconds into the test (a window is 1 000) and how many requests come then.
            long[][] arrivals = {{10, 60}, {11, 60}, {400, 5}, {970, 10}, {1000, 40}, {1001, 30}, {1250, 30}, {1500, 30},
                    {1960, 20}, {2030, 60}};
            long start = clock.millis();
            int admitted = 0;
            for (long[] a : arrivals) {
                advance(start + a[0] - clock.millis(), with, without);
                for (int i = 0; i < a[1]; i++) {
                    Decision p = admit(with, "alice");
                    Decision n = admit(without, "alice");
                    String where = algorithm + " at " + a[0] + " ms, request " + i;
                    assertThat(p.allowed()).as(where).isEqualTo(n.allowed());
                    assertThat(p.remaining()).as("Remaining " + where).isEqualTo(n.remaining());
                    if (p.allowed()) admitted++;
                }
            }
            assertThat(admitted).as("admitted in three windows").isGreaterThan(200);
            advance(LAPSED_MS, with, without);
            assertThat(EngineProbe.held(with.engine())).as("every stock handed back").isZero();
            admit(beside, "alice");
            assertThat(states(prefix + ":with:")).as("the counters alone, no stock nor tombstone").singleElement().asString()
                    .matches(counters(algorithm));
        }
    }

    /**
     * 91 of 100 taken by a server without prefetch; 30 ms before the window ends a prefetching server takes 1 and a
     * stock of the 8 left, and uses 4 of it. Its hold (100 ms) would reach into the next window, where the 4 left
     * would be admitted beside the next window's 100: the stock ends with its window instead (the sweep's next end is
     * the window's), its hand-back to a window gone does nothing, and the next window admits exactly 100.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fixed-window"})
    void aStockTakenJustBeforeItsWindowEndsIsNotUsedAfterIt(String algorithm) {
        try (Sluice a = server(algorithm, prefix, true);
             Sluice b = server(algorithm, prefix, false)) {
            long windowEnd = clock.millis() + PERIOD_MS;
            for (int i = 0; i < 91; i++) assertThat(admit(b, "carol").allowed()).isTrue();
            advance(PERIOD_MS - 30, a, b);
            assertThat(admit(a, "carol").remaining()).as("the request and a stock of the 8 left, all of them here").isEqualTo(8);
            assertThat(EngineProbe.nextHoldEnd(a.engine())).as("the stock's end: its window's, not the hold's").isEqualTo(windowEnd);
            for (int i = 0; i < 4; i++) assertThat(admit(a, "carol").allowed()).isTrue();
            assertThat(admit(b, "carol").allowed()).as("nothing left in Redis for the other server").isFalse();
            advance(30, a, b);
            int admitted = 0;
            for (int i = 0; i < 150; i++) {
                if (admit(i % 2 == 0 ? a : b, "carol").allowed()) admitted++;
            }
            assertThat(admitted).as("the next window, the stock's 4 left behind").isEqualTo(100);
        }
    }

    /**
     * Two prefetching servers on one key, 300 requests a window in turn, each window's first 200 early and the rest
     * after the holds ended: each window admits at most 100 (exactly 100 where nothing weighs from before); afterwards
     * no stock is left in Redis, and the key's state is a state without prefetch: its counters alone.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fixed-window", "sliding-window"})
    void twoServersNeverAdmitMoreThanTheLimitInAWindow(String algorithm) {
        try (Sluice a = server(algorithm, prefix, true);
             Sluice b = server(algorithm, prefix, true);
             Sluice beside = server(algorithm, prefix, false)) {
            for (int window = 0; window < 4; window++) {
                long start = clock.millis();
                int admitted = 0;
                for (int i = 0; i < 200; i++) {
                    if (admit(i % 2 == 0 ? a : b, "dave").allowed()) admitted++;
                }
                advance(500, a, b);
                for (int i = 0; i < 100; i++) {
                    if (admit(i % 2 == 0 ? a : b, "dave").allowed()) admitted++;
                }
                assertThat(admitted).as(algorithm + " window " + window).isLessThanOrEqualTo(100);
                // The fixed window's next starts afresh; the sliding window's first window is the only one with nothing before it.
                if (algorithm.equals("fixed-window") || window == 0) assertThat(admitted).as(algorithm + " window " + window).isEqualTo(100);
                advance(start + PERIOD_MS - clock.millis(), a, b);
            }
            advance(LAPSED_MS, a, b);
            admit(beside, "dave");
            assertThat(states(prefix)).as("the counters alone, no stock nor tombstone").singleElement().asString()
                    .matches(counters(algorithm));
        }
    }
}
