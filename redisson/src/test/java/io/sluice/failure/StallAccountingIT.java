package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.redisson.RateKeys;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.testing.EngineLoad;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis stalled by {@code DEBUG SLEEP} under load: the decisions that timed out during the stall are executed by
 * Redis when it wakes, each exactly once. So the permits consumed never exceed the decisions that were allowed by
 * Redis or timed out, and never fall short of those Redis allowed, for the sliding log and for every algorithm on
 * Redis TIME that keeps a count (token bucket, fixed and sliding window); and one window after the load ends, a
 * limit of every algorithm has its full capacity again.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class StallAccountingIT {
    @Parameter
    RedisVersion version;


    /** Algorithms whose state counts the permits taken, read back below (a leaky bucket's pace keeps no count). */
    private static final List<Algorithm> COUNTED = List.of(Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW);
    /** So long that nothing comes back while the test runs (a token every 316 s): what was taken stays taken. */
    private static final String NEVER_REFILLED = "100000/366d";
    /** The permits of {@link #NEVER_REFILLED}. */
    private static final long LIMIT = 100_000;
    /** The sliding log's permits an hour. */
    private static final long MILLION = 1_000_000;

    private static long zcard(RedisProcess redis, String key) {
        return (Long) redis.command("ZCARD", key);
    }

    /**
     * The counting engine's rules: {@code count}, the sliding log of old (a million an hour), read back from its log;
     * {@code count-<algorithm>} for the algorithms on Redis TIME that keep a count, a hundred thousand a year (periods stop at 366 days); and a
     * leaky bucket fast enough never to make a request wait, which shares the stall but keeps no count to read.
     */
    private static Map<String, String> countingRules(String address) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", address);
        p.put("sluice.rules.count.rate", "1000000/1h");
        // Each decision's own call is what the stall is felt by (RateRules).
        p.put("sluice.rules.count.prefetch", "off");
        RateRules.add(p, "count", NEVER_REFILLED, 0, Map.of(), COUNTED);
        RateRules.add(p, "count", "1000000/1s", 0, Map.of(), List.of(Algorithm.LEAKY_BUCKET));
        return p;
    }

    /** The windowed engine's rules, {@code window-<algorithm>}, 10 per 2 s. A second's deadline: the stall still
     * times it out, and the checks at the end never do. */
    private static Map<String, String> windowedRules(String address) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", address);
        p.put("sluice.backend-timeout", "1s");
        RateRules.addAll(p, "window", "10/2s", 0, Map.of());
        return p;
    }

    @Test
    void afterAStallNothingIsCountedTwiceAndFullCapacityReturnsAfterOneWindow() throws Exception {
        try (RedisProcess redis = version.start();
             // Two engines, so each one's stats are those of its own rules.
             Sluice counting = Sluice.fromProperties(countingRules(redis.address()));
             Sluice windowed = Sluice.fromProperties(windowedRules(redis.address()))) {
            List<String> countRules = counting.rules().all().stream().map(r -> r.name()).toList();
            List<String> windowRules = windowed.rules().all().stream().map(r -> r.name()).toList();
            await().atMost(Duration.ofSeconds(20)).until(() -> countRules.stream().allMatch(r -> Probe.decidedByRedis(counting, r))
                    && windowRules.stream().allMatch(r -> Probe.decidedByRedis(windowed, r)));
            Stats before = counting.stats();
            long decided;
            EngineLoad counted;
            try (EngineLoad countLoad = EngineLoad.start(counting, 4, 1, countRules);
                 EngineLoad windowLoad = EngineLoad.start(windowed, 2, 1, windowRules)) {
                counted = countLoad;
                await().atMost(Duration.ofSeconds(10)).until(() -> countLoad.decided.get() > 200);
                CompletableFuture<Object> stall = CompletableFuture.supplyAsync(() -> redis.command("DEBUG", "SLEEP", "2"));
                stall.join();
                long decidedAtWake = countLoad.decided.get();
                await().atMost(Duration.ofSeconds(10)).until(() -> countLoad.decided.get() > decidedAtWake + 200);
                countLoad.close();
                windowLoad.close();
                assertThat(countLoad.errors.get() + windowLoad.errors.get()).isZero();
                assertThat(countLoad.backendFailures.get()).as("the stall was felt").isPositive();
                for (String rule : countRules) {
                    assertThat(countLoad.backendFailures(rule)).as("the stall was felt by " + rule).isPositive();
                }
                decided = countLoad.decided.get();
            }
            Stats stats = counting.stats();
            long calls = stats.backendCalls() - before.backendCalls();
            String log = Keys.rateLog(counting, "count", "k0");
            // Every call sent before the load stopped has been answered or has timed out; the ones Redis still had
            // queued run within moments of the stall's end. Wait until the count stands still.
            long[] last = {-1};
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(300)).until(() -> {
                long now = zcard(redis, log);
                boolean still = now == last[0];
                last[0] = now;
                return still;
            });
            long consumed = zcard(redis, log);
            long free = Long.parseLong((String) redis.command("GET", Keys.rateValue(counting, "count", "k0")));
            System.out.println("stall: " + decided + " decisions made by Redis, " + calls + " backend calls, "
                    + stats.circuitOpenSkips() + " skipped by the open circuit; count: " + counted.allowed("count")
                    + " allowed by Redis, " + counted.backendFailures("count") + " failure decisions; permits consumed " + consumed);
            assertThat(consumed).as("permits consumed").isBetween(counted.allowed("count"),
                    counted.allowed("count") + counted.backendFailures("count"));
            assertThat(free).as("the counter agrees with the log").isEqualTo(MILLION - consumed);

            // The algorithms on Redis TIME, read back by one more decision from another server (no shield state):
            // what it leaves is what the load took, plus its own.
            long consumedByAll = consumed;
            // The reader is not under test: on a loaded machine its first call (which loads each script) may take
            // longer than the counting engine's deadline, and must not be read as a failure.
            Map<String, String> readerRules = countingRules(redis.address());
            readerRules.put("sluice.backend-timeout", "5s");
            readerRules.put("sluice.await-backend", "10s");
            try (Sluice reader = Sluice.fromProperties(readerRules)) {
                for (Algorithm a : COUNTED) {
                    String name = RateRules.name("count", a);
                    Decision d = Probe.admit(reader, name, "k0").decisions().get(0);
                    assertThat(d.outcome()).as(name).isEqualTo(Decision.Outcome.DECIDED);
                    long taken = LIMIT - 1 - d.remaining();
                    System.out.println("stall: " + name + ": " + counted.allowed(name) + " allowed by Redis, "
                            + counted.backendFailures(name) + " failure decisions; permits consumed " + taken);
                    assertThat(taken).as(name + ": permits consumed").isBetween(counted.allowed(name),
                            counted.allowed(name) + counted.backendFailures(name));
                    consumedByAll += taken;
                }
            }
            long allowedCounted = counted.allowed("count");
            for (Algorithm a : COUNTED) allowedCounted += counted.allowed(RateRules.name("count", a));
            assertThat(consumedByAll).as("permits consumed by every counting rule").isBetween(allowedCounted, calls);

            // One window after the last request, the full 10 are free again.
            String windowLog = Keys.rateLog(windowed, RateRules.name("window", Algorithm.SLIDING_LOG), "k0");
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                long now = System.currentTimeMillis();
                return (Long) redis.command("ZCOUNT", windowLog, Long.toString(now - 2_000), "+inf") == 0;
            });
            var rule = windowed.rules().get(RateRules.name("window", Algorithm.SLIDING_LOG)).orElseThrow();
            for (int i = 0; i < 11; i++) {
                Admission a = windowed.admit(List.of(rule), KeySource.fixed("k0")).toCompletableFuture().join();
                assertThat(a.allowed()).as("request " + (i + 1) + " after one window").isEqualTo(i < 10);
                assertThat(a.decisions().get(0).remaining()).as(a.decisions() + " " + windowed.stats()).isEqualTo(i < 10 ? 9 - i : 0);
            }
            // The others: the key expires by itself once its state is as good as none (a full bucket, the window
            // and the one after it over), within two windows and a second; then the key holds its whole capacity.
            for (Algorithm a : Algorithm.values()) {
                if (a == Algorithm.SLIDING_LOG) continue;
                String name = RateRules.name("window", a);
                Rule r = windowed.rules().get(name).orElseThrow();
                String key = RateKeys.name("sluice", name, a, r.rate().orElseThrow().period(), KeyResolver.hash("k0"));
                await(name + " expired").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                        .until(() -> (Long) redis.command("EXISTS", key) == 0);
                Decision d = Probe.admit(windowed, name, "k0").decisions().get(0);
                assertThat(d.allowed()).as(name + " after its key expired").isTrue();
                assertThat(d.remaining()).as(name + " after its key expired").isEqualTo(RateRules.capacity(r) - 1);
            }
        }
    }
}
