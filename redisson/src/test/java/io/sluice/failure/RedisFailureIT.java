package io.sluice.failure;

import io.sluice.Sluice;
import io.sluice.SpareCpuSluice;
import io.sluice.Stats;
import io.sluice.rule.Settings;
import io.sluice.testing.ChaosProxy;
import io.sluice.testing.EngineLoad;
import io.sluice.testing.Latencies;
import io.sluice.spi.Algorithm;
import io.sluice.testing.RedisKeyAudit;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine on a real redis-server behind a {@link ChaosProxy}, with the default {@code sluice.backend-timeout}
 * (100 ms), under steady load while Redis is down, killed, shut down, stalled, paused, blackholed, reset or slow.
 * The rate rules come in all five algorithms ({@link RateRules}), in one engine under the same load, so each fault
 * is felt by every algorithm's script in one run. Every case checks the same promises: no decision throws or
 * hangs; each decision takes at most the deadline plus a margin for a loaded 2-core machine (p99 at most timeout +
 * 100 ms); failure decisions follow each rule's {@code on-backend-failure}, and every algorithm has some; once
 * Redis is back, the limits of every algorithm are enforced exactly again within a few seconds; and every key left
 * in Redis has a TTL and Sluice's shape.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class RedisFailureIT {
    @Parameter
    RedisVersion version;

    private static final Duration TIMEOUT = Settings.DEFAULT_BACKEND_TIMEOUT;
    /** A loaded 2-core CI box: the deadline plus scheduling noise. */
    private static final double P99_BOUND_MILLIS = TIMEOUT.toMillis() + 100;
    private static final Duration FAULT = Duration.ofSeconds(3);
    private static final Map<String, String> FIGURES = new LinkedHashMap<>();

    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stopEverything() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                System.out.println("could not stop " + started.get(i) + ": " + e); // and stop the rest
            }
        }
    }

    @AfterAll
    static void printFigures() {
        System.out.println("Failure figures (backend-timeout " + TIMEOUT.toMillis() + " ms):");
        FIGURES.forEach((name, line) -> System.out.println("  " + name + ": " + line));
    }

    private <T extends AutoCloseable> T track(T resource) {
        started.add(resource);
        return resource;
    }

    /** Load rules failing open and closed for every algorithm (as in {@link RateRules}), their names. */
    private static final List<String> OPEN = names("open");
    private static final List<String> CLOSED = names("closed");
    /** The exact rules probed for recovery, one per algorithm. */
    private static final List<String> CHECKS = names("check");
    private static final List<String> LOADED = new ArrayList<>();

    static {
        LOADED.addAll(OPEN);
        LOADED.addAll(CLOSED);
        LOADED.add("slots");
    }

    private static List<String> names(String base) {
        List<String> names = new ArrayList<>();
        for (Algorithm a : Algorithm.values()) names.add(RateRules.name(base, a));
        return names;
    }

    /**
     * Rules under load: for every algorithm one failing open and one failing closed, plus one concurrency rule; and an
     * exact rule per algorithm to probe.
     */
    private Sluice sluice(String address) {
        return track(Sluice.fromProperties(properties(address)));
    }

    private static Map<String, String> properties(String address) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", address);
        // Serving while Redis is down from the start is the subject: no wait for a first connection.
        p.put("sluice.await-backend", "0s");
        RateRules.addAll(p, "open", "1000000/1m", Map.of());
        RateRules.addAll(p, "closed", "1000000/1m", Map.of("on-backend-failure", "deny"));
        p.put("sluice.rules.slots.concurrency", "1000");
        p.put("sluice.rules.slots.lease", "5s");
        RateRules.addAll(p, "check", "5/2s", 0, Map.of());
        return p;
    }

    /** Waits until the limits of every algorithm are enforced exactly again; returns how long that took from {@code healedAt}. */
    private long recoveryMillis(Sluice sluice, long healedAt) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> Probe.exact(sluice, CHECKS));
        return (System.nanoTime() - healedAt) / 1_000_000;
    }

    /** Every algorithm's script felt the fault: each load rule has failure decisions (each one by its policy). */
    private static void everyAlgorithmFelt(EngineLoad load, Map<String, Long> failuresBefore) {
        for (String rule : OPEN) {
            assertThat(load.backendFailures(rule) - failuresBefore.getOrDefault(rule, 0L)).as("failure decisions of " + rule).isPositive();
        }
        for (String rule : CLOSED) {
            assertThat(load.backendFailures(rule) - failuresBefore.getOrDefault(rule, 0L)).as("failure decisions of " + rule).isPositive();
        }
    }

    private static Map<String, Long> failuresByRule(EngineLoad load) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String rule : LOADED) counts.put(rule, load.backendFailures(rule));
        return counts;
    }

    /** After the heal: every key Sluice wrote has a TTL and Sluice's shape. */
    private static void keysAudited(int port) {
        RedisKeyAudit audit = RedisKeyAudit.of(port, "sluice");
        assertThat(audit.keys).as(audit.toString()).isPositive();
        assertThat(audit.withoutTtl).as(audit.toString()).isEmpty();
        assertThat(audit.malformed).as(audit.toString()).isEmpty();
    }

    /**
     * Runs load, injects the fault for {@link #FAULT}, heals it, and checks every promise. {@code inject} returns the
     * action that heals (and waits for the heal when it is not instant).
     */
    private void survive(String name, int redisPort, Sluice sluice, java.util.function.Supplier<Runnable> inject) throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(() -> Probe.exact(sluice, CHECKS));
        try (EngineLoad load = EngineLoad.start(sluice, 4, 20, LOADED)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> load.decided.get() > 100);
            Stats before = sluice.stats();
            long failuresBefore = load.backendFailures.get();
            Map<String, Long> failuresBeforeByRule = failuresByRule(load);
            Latencies during = load.measure();
            Runnable heal = inject.get();
            Thread.sleep(FAULT.toMillis()); // the length of the outage, not a synchronisation
            heal.run();
            long healedAt = System.nanoTime();
            Latencies after = load.measure();
            long recovery = recoveryMillis(sluice, healedAt);
            Stats stats = sluice.stats();
            long skipped = stats.circuitOpenSkips() - before.circuitOpenSkips();
            String figure = "during: " + during.summary() + "; recovered (exact enforcement) in " + recovery
                    + " ms; circuit-skipped decisions " + skipped + "; after: " + after.summary();
            FIGURES.put(name, figure);
            System.out.println(name + ": " + figure);
            assertThat(load.errors.get()).as("decisions that threw: " + load.firstError()).isZero();
            assertThat(load.policyViolations.get()).as("failure decisions against on-backend-failure").isZero();
            assertThat(load.backendFailures.get() - failuresBefore).as("the fault was felt").isPositive();
            everyAlgorithmFelt(load, failuresBeforeByRule);
            assertThat(skipped).as("the circuit opened").isPositive();
            assertThat(during.p99()).as(name + " p99 ms").isLessThanOrEqualTo(P99_BOUND_MILLIS);
            assertThat(during.maxMillis()).as(name + " max ms").isLessThan(2_000);
            assertThat(recovery).as(name + " recovery ms").isLessThan(10_000);
        }
        keysAudited(redisPort);
    }

    @Test
    void redisDownAtStartThenEnforcedOnceItAppearsWithoutRestart() throws Exception {
        int port = TestRedis.freePort();
        long start = System.nanoTime();
        Sluice sluice = sluice("redis://127.0.0.1:" + port);
        long buildMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(buildMillis).as("building the engine never waits for Redis").isLessThan(2_000);
        try (EngineLoad load = EngineLoad.start(sluice, 4, 20, LOADED)) {
            Latencies during = load.measure();
            Thread.sleep(FAULT.toMillis()); // Redis stays down this long
            long decidedWhileDown = load.decided.get();
            long failedWhileDown = load.backendFailures.get();
            assertThat(sluice.clockSkew()).as("no skew measured without Redis").isEmpty();
            RedisProcess redis = track(version.start(port, List.of()));
            long healedAt = System.nanoTime();
            long recovery = recoveryMillis(sluice, healedAt);
            // The skew measurement that failed at start is retried every second, not in a minute.
            await().atMost(Duration.ofSeconds(5)).until(() -> sluice.clockSkew().isPresent());
            assertThat(sluice.clockSkew().get().abs()).isLessThan(Duration.ofSeconds(1));
            String figure = "engine built in " + buildMillis + " ms; while down: " + during.summary()
                    + "; enforced " + recovery + " ms after Redis started";
            FIGURES.put("down at start", figure);
            System.out.println("down at start: " + figure);
            assertThat(redis.isAlive()).isTrue();
            assertThat(load.errors.get()).as("decisions that threw: " + load.firstError()).isZero();
            assertThat(load.policyViolations.get()).isZero();
            assertThat(decidedWhileDown).isZero();
            assertThat(failedWhileDown).isPositive();
            everyAlgorithmFelt(load, Map.of());
            assertThat(sluice.stats().circuitOpenSkips()).isPositive();
            assertThat(during.p99()).isLessThanOrEqualTo(P99_BOUND_MILLIS);
            assertThat(recovery).isLessThan(10_000);
        }
        keysAudited(port);
    }

    @Test
    void redisKilledMidLoadAndRestarted() throws Exception {
        RedisProcess redis = track(version.start());
        Sluice sluice = sluice(redis.address());
        survive("killed (SIGKILL) and restarted", redis.port(), sluice, () -> {
            redis.kill();
            return redis::restart;
        });
    }

    @Test
    void redisShutDownAndRestarted() throws Exception {
        RedisProcess redis = track(version.start());
        Sluice sluice = sluice(redis.address());
        survive("SHUTDOWN NOSAVE and restarted", redis.port(), sluice, () -> {
            redis.shutdown();
            return redis::restart;
        });
    }

    @Test
    void redisStalledByDebugSleep() throws Exception {
        RedisProcess redis = track(version.start());
        Sluice sluice = sluice(redis.address());
        survive("stalled (DEBUG SLEEP 3)", redis.port(), sluice, () -> {
            CompletableFuture<Object> sleeping = CompletableFuture.supplyAsync(() -> redis.command("DEBUG", "SLEEP", "3"));
            return sleeping::join;
        });
    }

    @Test
    void redisPausedByClientPause() throws Exception {
        RedisProcess redis = track(version.start());
        Sluice sluice = sluice(redis.address());
        survive("paused (CLIENT PAUSE 3000)", redis.port(), sluice, () -> {
            redis.command("CLIENT", "PAUSE", "3000");
            // PING waits out the pause: the heal is the pause ending.
            return () -> redis.command("PING");
        });
    }

    @Test
    void networkBlackhole() throws Exception {
        RedisProcess redis = track(version.start());
        ChaosProxy proxy = track(ChaosProxy.to(redis.port()));
        Sluice sluice = sluice(proxy.address());
        survive("network blackhole", redis.port(), sluice, () -> {
            proxy.blackhole();
            return proxy::pass;
        });
    }

    @Test
    void connectionsReset() throws Exception {
        RedisProcess redis = track(version.start());
        ChaosProxy proxy = track(ChaosProxy.to(redis.port()));
        Sluice sluice = sluice(proxy.address());
        survive("connections reset (RST)", redis.port(), sluice, () -> {
            proxy.reset();
            return proxy::pass;
        });
    }

    @Test
    void addedLatencyBeyondTheDeadline() throws Exception {
        RedisProcess redis = track(version.start());
        ChaosProxy proxy = track(ChaosProxy.to(redis.port()));
        // A Redis slower than the deadline is the subject, not a busy server: on a loaded machine a busy server's
        // allowances would rightly wait for the slow answers, and no decision would fail.
        Sluice sluice = track(SpareCpuSluice.fromProperties(properties(proxy.address())));
        survive("300 ms added latency", redis.port(), sluice, () -> {
            proxy.latency(Duration.ofMillis(300));
            return proxy::pass;
        });
    }
}
