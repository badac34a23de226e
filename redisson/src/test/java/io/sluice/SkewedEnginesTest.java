package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.testing.Resp;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two engines on one Redis whose clocks are 10 s apart (one 5 s behind, one 5 s ahead), deciding in turn on one
 * key: each algorithm on Redis {@code TIME} admits exactly its limit. The rates are chosen so that the skew would
 * show if either engine's clock counted: a 10 s window (the two clocks would sit in different windows: twice the
 * limit), a token every 5 s (the engine ahead would find two more tokens), a leaky bucket's slot every 5 s (the
 * engine ahead would find the next slot free).
 */
class SkewedEnginesTest {
    private static final Duration SKEW = Duration.ofSeconds(5);
    /** Windows of the windowed rules, and the unit the run must fit in. */
    private static final long WINDOW_MILLIS = 10_000;
    /** The most Redis time a run may take and still prove the count (below the 5 s a token or a slot takes). */
    private static final long RUN_MILLIS = 2_000;
    private static final int LIMIT = 20;
    private static final int REQUESTS = 60;
    private static Sluice one;
    private static Sluice other;

    /** Rule {@code skewed-<algorithm>} for each algorithm on Redis TIME. */
    private static Map<String, String> rules() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", TestRedis.address());
        p.put("sluice.key-prefix", "skew-" + UUID.randomUUID().toString().substring(0, 8));
        // Every decision made by Redis, however loaded the machine: none left to on-backend-failure.
        p.put("sluice.backend-timeout", "5s");
        for (Algorithm a : Algorithm.values()) {
            String rule = "sluice.rules.skewed-" + a.id() + ".";
            switch (a) {
                case SLIDING_LOG -> {
                    continue; // on this server's clock, as Redisson's own limiter
                }
                // 20 every 100 s, all at once from a full bucket: one token back every 5 s
                case TOKEN_BUCKET -> {
                    p.put(rule + "rate", LIMIT + "/100s");
                    p.put(rule + "burst", Integer.toString(LIMIT));
                }
                // 12 a minute: one slot every 5 s, no queue; a fresh key admits one
                case LEAKY_BUCKET -> p.put(rule + "rate", "12/1m");
                default -> p.put(rule + "rate", LIMIT + "/10s");
            }
            p.put(rule + "algorithm", a.id());
        }
        return p;
    }

    @BeforeAll
    static void start() {
        Map<String, String> rules = rules();
        one = Sluice.builder().properties(rules).clock(Clock.offset(Clock.systemUTC(), SKEW.negated())).build();
        other = Sluice.builder().properties(rules).clock(Clock.offset(Clock.systemUTC(), SKEW)).build();
        // Connected and measured: each engine sees its own clock 5 s off Redis's, in opposite directions.
        await().atMost(Duration.ofSeconds(20)).until(() -> one.clockSkew().isPresent() && other.clockSkew().isPresent());
    }

    /** Until a decision of {@code engine} under {@code rule}, on a throw-away key, is Redis's: connected, script loaded. */
    private static void warm(Sluice engine, Rule rule) {
        await().atMost(Duration.ofSeconds(20)).until(() -> engine.admit(List.of(rule), KeySource.fixed("warm-" + UUID.randomUUID()))
                .toCompletableFuture().join().decisions().get(0).outcome() == Decision.Outcome.DECIDED);
    }

    @AfterAll
    static void stop() {
        if (one != null) one.close();
        if (other != null) other.close();
    }

    private static long redisMillis() {
        try (Resp resp = Resp.connect(URI.create(TestRedis.address()).getPort(), Duration.ofSeconds(10))) {
            List<?> t = (List<?>) resp.call("TIME");
            return Long.parseLong((String) t.get(0)) * 1000 + Long.parseLong((String) t.get(1)) / 1000;
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "SLIDING_LOG", mode = EnumSource.Mode.EXCLUDE)
    void twoEnginesWhoseClocksAreTenSecondsApartEnforceOneExactLimit(Algorithm a) {
        Rule r1 = one.rules().get("skewed-" + a.id()).orElseThrow();
        Rule r2 = other.rules().get("skewed-" + a.id()).orElseThrow();
        warm(one, r1);
        warm(other, r2);
        assertThat(one.clockSkew().get().toMillis()).isBetween(-6_000L, -4_000L);
        assertThat(other.clockSkew().get().toMillis()).isBetween(4_000L, 6_000L);
        // A window algorithm starts with at least 2 s left in Redis's window, so that the run (well under a second)
        // stays within it.
        boolean windowed = a == Algorithm.FIXED_WINDOW || a == Algorithm.SLIDING_WINDOW;
        if (windowed) {
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> Math.floorMod(redisMillis(), WINDOW_MILLIS) < WINDOW_MILLIS - RUN_MILLIS);
        }
        long start = redisMillis();
        int admitted = 0;
        for (int i = 0; i < REQUESTS; i++) {
            Sluice engine = i % 2 == 0 ? one : other;
            Admission d = engine.admit(List.of(i % 2 == 0 ? r1 : r2), KeySource.fixed("one-key")).toCompletableFuture().join();
            assertThat(d.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED);
            if (d.allowed()) admitted++;
        }
        long end = redisMillis();
        assumeTrue((!windowed || end / WINDOW_MILLIS == start / WINDOW_MILLIS) && end - start < RUN_MILLIS,
                "the run took " + (end - start) + " ms of Redis time and left its window");
        assertThat(admitted).isEqualTo(a == Algorithm.LEAKY_BUCKET ? 1 : LIMIT);
    }
}
