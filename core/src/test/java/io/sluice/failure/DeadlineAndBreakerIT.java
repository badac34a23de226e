package io.sluice.failure;

import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Settings;
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
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Redis answering later than the deadline, through a {@link ChaosProxy} adding 300 ms: a decision costs Sluice's
 * 100 ms default deadline, its script reaches Redis once (never retried, so it counts once), and the circuit
 * breaker stops sending anything to Redis after repeated failures, then closes by itself when Redis is fast again.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class DeadlineAndBreakerIT {
    @Parameter
    RedisVersion version;

    private static final long TIMEOUT_MILLIS = Settings.DEFAULT_BACKEND_TIMEOUT.toMillis();
    private static final Duration SLOW = Duration.ofMillis(300);

    private RedisProcess redis;
    private ChaosProxy proxy;
    private Sluice sluice;

    @BeforeEach
    void start() {
        redis = version.start();
        proxy = ChaosProxy.to(redis.port());
        sluice = Sluice.fromProperties(Map.of("sluice.redis.address", proxy.address(),
                "sluice.rules.r.rate", "10/1m",
                "sluice.rules.big.rate", "1000000/1m"));
        // Connected, scripts cached, clock skew measured (its TIME script would otherwise be retried every second
        // and counted below): what follows measures decisions, not the start.
        await().atMost(Duration.ofSeconds(20)).until(() -> decide("big", "warm-up").outcome() == Decision.Outcome.DECIDED
                && sluice.clockSkew().isPresent());
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

    @Test
    void aDecisionPastTheDeadlineFailsOpenAtTheDeadlineAndItsLateScriptCountsOnce() {
        proxy.latency(SLOW);
        long scriptsBefore = proxy.scriptsDelivered();
        long failedBefore = sluice.stats().failedOpen();
        long start = System.nanoTime();
        Decision d = decide("r", "victim");
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("decision with Redis 300 ms away: " + millis + " ms (deadline " + TIMEOUT_MILLIS + " ms)");
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        assertThat(d.allowed()).isTrue();
        assertThat(millis).isGreaterThanOrEqualTo(TIMEOUT_MILLIS - 5).isLessThanOrEqualTo(TIMEOUT_MILLIS + 100);
        assertThat(sluice.stats().failedOpen() - failedBefore).isEqualTo(1);

        String log = Keys.rateLog(sluice, "r", "victim");
        // The script still reaches Redis, late, and consumes its one permit...
        await().atMost(Duration.ofSeconds(5)).until(() -> zcard(log) == 1);
        // ...and nothing sends it again: watch long past any retry delay of Redisson's.
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(() -> zcard(log) == 1);
        assertThat(proxy.scriptsDelivered() - scriptsBefore).as("script calls delivered to Redis").isEqualTo(1);
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
            Decision d = decide("big", "k" + decisions % 10);
            latencies.record(System.nanoTime() - start);
            decisions++;
            assertThat(d.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(d.allowed()).isTrue();
            failedOpen++;
            sleep(5); // pacing
        }
        // Late scripts arrive within the added 300 ms: wait until the proxy holds none back, then count them all.
        await("every held-back chunk delivered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> proxy.heldBack() == 0);
        long delivered = proxy.scriptsDelivered() - scriptsBefore;
        System.out.println("breaker: " + decisions + " decisions in 3 s with Redis 300 ms away reached Redis " + delivered
                + " times; latency " + latencies.summary() + "; stats " + sluice.stats());
        assertThat(decisions).isGreaterThan(100);
        // 5 failures open the circuit; then one probe per second of cool-down (each probe's 100 ms extends it).
        assertThat(delivered).isBetween(5L, 9L);
        assertThat(sluice.stats().failedOpen() - before.failedOpen()).isEqualTo(failedOpen);
        assertThat(sluice.stats().circuitOpenSkips() - before.circuitOpenSkips()).isEqualTo(decisions - delivered);
        assertThat(latencies.p50()).as("a skipped decision costs nothing").isLessThan(5);
        assertThat(latencies.p99()).isLessThanOrEqualTo(TIMEOUT_MILLIS + 100);

        proxy.pass();
        long healed = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> decide("big", "after").outcome() == Decision.Outcome.DECIDED);
        long closedMillis = (System.nanoTime() - healed) / 1_000_000;
        System.out.println("breaker closed " + closedMillis + " ms after Redis was fast again");
        assertThat(closedMillis).isLessThan(3_000);
        // Enforced exactly again, each decision asking Redis (retried on a fresh key if a loaded machine made one late).
        int[] round = {0};
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            String key = "closed-again-" + round[0]++;
            long scriptsNow = proxy.scriptsDelivered();
            for (int i = 0; i < 20; i++) {
                Decision d = decide("r", key);
                if (d.allowed() != (i < 10) || d.outcome() != Decision.Outcome.DECIDED) return false;
            }
            // 10 calls: the 10th took the last permit, so the 11th and later are rejected locally by the
            // attack shield until the oldest permit frees.
            return proxy.scriptsDelivered() - scriptsNow == 10;
        });
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
