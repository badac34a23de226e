package io.sluice.failure;

import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.SpareCpuSluice;
import io.sluice.rule.Rule;
import io.sluice.rule.Settings;
import io.sluice.spi.Algorithm;
import io.sluice.testing.ChaosProxy;
import io.sluice.testing.Latencies;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Redis answering later than the deadline, through a {@link ChaosProxy} adding 300 ms: a decision costs Sluice's
 * 100 ms default deadline, its script reaches Redis once (never retried, so it counts once), and the circuit
 * breaker stops sending anything to Redis after repeated failures, then closes by itself when Redis is fast again.
 * The rate rules come in all five algorithms ({@link RateRules}): each algorithm's late script counts once, and each
 * is enforced exactly again after the breaker closes. Its deadlines pass on real time without a busy server's
 * allowances ({@link SpareCpuSluice}): on a loaded machine those would rightly wait for the slow answer.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class DeadlineAndBreakerIT {
    @Parameter
    RedisVersion version;

    private static final long TIMEOUT_MILLIS = Settings.DEFAULT_BACKEND_TIMEOUT.toMillis();
    private static final Duration SLOW = Duration.ofMillis(300);

    /** The rules {@link #rules} makes, one per algorithm. */
    private static final List<String> R = names("r");
    private static final List<String> BIG = names("big");

    private RedisProcess redis;
    private ChaosProxy proxy;
    private Sluice sluice;

    @BeforeEach
    void start() {
        redis = version.start();
        proxy = ChaosProxy.to(redis.port());
        sluice = SpareCpuSluice.fromProperties(rules(proxy.address()));
        // Connected, scripts cached, clock skew measured (its TIME script would otherwise be retried every second
        // and counted below): what follows measures decisions, not the start.
        await().atMost(Duration.ofSeconds(20)).until(() -> BIG.stream().allMatch(big -> decide(big, "warm-up").outcome() == Decision.Outcome.DECIDED)
                && sluice.clockSkew().isPresent());
    }

    /**
     * For every algorithm ({@link RateRules}): {@code r-<algorithm>}, 10 a day (a leaky bucket without a queue, so
     * that no decision waits hours for its slot), and {@code big-<algorithm>}, never reached.
     */
    private static Map<String, String> rules(String address) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", address);
        // The deadline from the first decision on is the subject: no start-up wait stretches it.
        p.put("sluice.await-backend", "0s");
        RateRules.addAll(p, "r", "10/1d", 0, Map.of());
        // Never prefetched: a late prefetch's stock goes back in a script of its own, which would add to the calls the
        // breaker test counts as its probes (one CI run counted 10 where 5 to 9 are probes).
        RateRules.addAll(p, "big", "1000000/1m", Map.of("prefetch", "off"));
        return p;
    }

    private static List<String> names(String base) {
        return Arrays.stream(Algorithm.values()).map(a -> RateRules.name(base, a)).toList();
    }

    @AfterEach
    void stop() {
        if (sluice != null) sluice.close();
        if (proxy != null) proxy.close();
        if (redis != null) redis.close();
    }

    private Decision decide(String rule, String key) {
        return sluice.admit(List.of(sluice.rules().get(rule).orElseThrow()), KeySource.fixed(key))
                .toCompletableFuture().join().decisions().get(0);
    }

    private long zcard(String key) {
        return (Long) redis.command("ZCARD", key);
    }

    /**
     * One decision per algorithm with Redis 300 ms away: each fails open at the deadline, and each late script
     * reaches Redis exactly once and consumes exactly one permit (one slot of the leaky bucket).
     */
    @Test
    void aDecisionPastTheDeadlineFailsOpenAtTheDeadlineAndItsLateScriptCountsOnce() {
        proxy.latency(SLOW);
        long scriptsBefore = proxy.scriptsDelivered();
        long failedBefore = sluice.stats().failedOpen();
        for (String rule : R) {
            long start = System.nanoTime();
            Decision d = decide(rule, "victim");
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println(rule + ": decision with Redis 300 ms away: " + millis + " ms (deadline " + TIMEOUT_MILLIS + " ms)");
            assertThat(d.outcome()).as(rule).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(d.allowed()).as(rule).isTrue();
            assertThat(millis).as(rule).isGreaterThanOrEqualTo(TIMEOUT_MILLIS - 5).isLessThanOrEqualTo(TIMEOUT_MILLIS + 100);
        }
        // Five consecutive failures open the circuit only after the fifth: every one of them was sent.
        assertThat(sluice.stats().failedOpen() - failedBefore).isEqualTo(R.size());

        String log = Keys.rateLog(sluice, RateRules.name("r", Algorithm.SLIDING_LOG), "victim");
        // The scripts still reach Redis, late, and the sliding log's consumes its one permit...
        await().atMost(Duration.ofSeconds(5)).until(() -> zcard(log) == 1 && proxy.scriptsDelivered() - scriptsBefore == R.size());
        // ...and nothing sends them again: watch long past any retry delay of Redisson's.
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(() -> zcard(log) == 1);
        assertThat(proxy.scriptsDelivered() - scriptsBefore).as("script calls delivered to Redis").isEqualTo(R.size());

        // Asked directly (another server, no proxy, no shield state; a deadline its first calls on a loaded machine
        // cannot miss): each late script took one permit, once.
        Map<String, String> directly = rules(redis.address());
        directly.put("sluice.backend-timeout", "5s");
        try (Sluice direct = Sluice.fromProperties(directly)) {
            for (String name : R) {
                Rule rule = direct.rules().get(name).orElseThrow();
                Decision d = direct.admit(List.of(rule), KeySource.fixed("victim")).toCompletableFuture().join().decisions().get(0);
                assertThat(d.outcome()).as(name).isEqualTo(Decision.Outcome.DECIDED);
                if (rule.ratePolicy().algorithm() == Algorithm.LEAKY_BUCKET) {
                    // No queue: the late script took the slot, so this one waits at most one interval (two slots
                    // taken would make it two).
                    Duration interval = rule.rate().orElseThrow().period().dividedBy(10);
                    assertThat(d.allowed()).as(name).isFalse();
                    assertThat(d.retryAfter()).as(name).isBetween(interval.minusMinutes(1), interval);
                } else {
                    assertThat(d.allowed()).as(name).isTrue();
                    assertThat(d.remaining()).as(name + ": the late script's permit and this one").isEqualTo(10 - 2);
                }
            }
        }
    }

    /**
     * The control: the same measurement catches a client that retries a timed-out script. With Redisson's defaults
     * (4 retries), one timed-out script call runs 5 times.
     */
    @Test
    void redissonDefaultsRunATimedOutScriptSeveralTimes() {
        String script = "return redis.call('incr', KEYS[1])";
        redis.command("SCRIPT", "LOAD", script); // cached, so every retry really runs it
        Config config = new Config();
        config.useSingleServer().setAddress(proxy.address()).setTimeout((int) TIMEOUT_MILLIS);
        RedissonClient defaults = Redisson.create(config);
        try {
            RScript scripts = defaults.getScript(StringCodec.INSTANCE);
            scripts.eval(RScript.Mode.READ_WRITE, "return 1", RScript.ReturnType.LONG); // connected
            proxy.latency(SLOW);
            Throwable failure = catchThrowable(() -> scripts.eval("control", RScript.Mode.READ_WRITE, script,
                    RScript.ReturnType.LONG, List.of("control")));
            assertThat(failure).isNotNull();
            await().atMost(Duration.ofSeconds(20)).until(() -> "5".equals(redis.command("GET", "control")));
            System.out.println("Redisson defaults (" + config.useSingleServer().getRetryAttempts()
                    + " retries): one timed-out script call ran " + redis.command("GET", "control") + " times");
        } finally {
            defaults.shutdown();
        }
    }

    @Test
    void theBreakerStopsCallingRedisThenProbesAndClosesByItself() {
        proxy.latency(SLOW);
        long scriptsBefore = proxy.scriptsDelivered();
        io.sluice.Stats before = sluice.stats(); // the warm-up may have failed once, at the first connection
        Latencies latencies = new Latencies();
        int decisions = 0;
        int failedOpen = 0;
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() < end) {
            long start = System.nanoTime();
            Decision d = decide(BIG.get(decisions % BIG.size()), "k" + decisions % 10);
            latencies.record(System.nanoTime() - start);
            decisions++;
            assertThat(d.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(d.allowed()).isTrue();
            failedOpen++;
            sleep(5); // pacing
        }
        // Every decision the open circuit let through asked the backend once; its script arrives late (the added
        // 300 ms, and on a loaded machine the client's own delay in writing it): wait until each one has reached
        // Redis and the proxy holds none back, then count them all.
        long calls = sluice.stats().backendCalls() - before.backendCalls();
        await("every script sent delivered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> proxy.heldBack() == 0 && proxy.scriptsDelivered() - scriptsBefore >= calls);
        long delivered = proxy.scriptsDelivered() - scriptsBefore;
        System.out.println("breaker: " + decisions + " decisions in 3 s with Redis 300 ms away reached Redis " + delivered
                + " times; latency " + latencies.summary() + "; stats " + sluice.stats());
        assertThat(decisions).isGreaterThan(100);
        // 5 failures open the circuit; then one probe per second of cool-down (each probe's 100 ms extends it).
        assertThat(delivered).isBetween(5L, 9L);
        assertThat(delivered).as("scripts delivered: each call once, never retried").isEqualTo(calls);
        assertThat(sluice.stats().failedOpen() - before.failedOpen()).isEqualTo(failedOpen);
        assertThat(sluice.stats().circuitOpenSkips() - before.circuitOpenSkips()).isEqualTo(decisions - delivered);
        assertThat(latencies.p50()).as("a skipped decision costs nothing").isLessThan(5);
        assertThat(latencies.p99()).isLessThanOrEqualTo(TIMEOUT_MILLIS + 100);

        proxy.pass();
        long healed = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> decide(BIG.get(0), "after").outcome() == Decision.Outcome.DECIDED);
        long closedMillis = (System.nanoTime() - healed) / 1_000_000;
        System.out.println("breaker closed " + closedMillis + " ms after Redis was fast again");
        assertThat(closedMillis).isLessThan(3_000);
        // Enforced exactly again by every algorithm, each decision asking Redis (retried on a fresh key if a loaded
        // machine made one late).
        for (String name : R) {
            long capacity = RateRules.capacity(sluice.rules().get(name).orElseThrow());
            int[] round = {0};
            await(name + " exact again").atMost(Duration.ofSeconds(10)).until(() -> {
                String key = "closed-again-" + round[0]++;
                long scriptsNow = proxy.scriptsDelivered();
                for (int i = 0; i < 20; i++) {
                    Decision d = decide(name, key);
                    if (d.allowed() != (i < capacity) || d.outcome() != Decision.Outcome.DECIDED) return false;
                }
                // As many calls as permits: the last permit taken, the later requests are rejected locally by the
                // attack shield until a permit frees.
                return proxy.scriptsDelivered() - scriptsNow == capacity;
            });
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
