package io.sluice.topology;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.testing.RedisCluster;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisSentinel;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.RedisYaml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A master fails under a steady stream of decisions: behind Sentinel (master, replica, 3 Sentinels, quorum 2)
 * it hangs ({@code DEBUG SLEEP}, so calls run into the timeout); in a Redis Cluster (3 masters, 3 replicas) it
 * is killed (SIGKILL, so calls fail at once). While the failover runs, every
 * decision comes back within the backend timeout plus slack and follows its rule's {@code on-backend-failure};
 * once the replica is promoted, the engine decides through Redis again by itself and limits are exact on the
 * promoted node.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class FailoverIT {
    private static final long BACKEND_TIMEOUT_MS = 250;
    /** Scheduling slack of a loaded 2-core machine on top of the deadline; Redisson's defaults would be seconds. */
    private static final long LATENCY_BOUND_MS = BACKEND_TIMEOUT_MS + 1_000;

    @Parameter
    RedisVersion version;

    private record Sample(long atMillis, long latencyMillis, String rule, boolean allowed, Decision.Outcome outcome) {
    }

    private static Map<String, String> rules(String redisConfig, String prefix) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.config", redisConfig);
        p.put("sluice.key-prefix", prefix);
        p.put("sluice.backend-timeout", BACKEND_TIMEOUT_MS + "ms");
        p.put("sluice.on-backend-failure", "deny");
        // Budgets the stream never exhausts: while Redis answers, both admit.
        p.put("sluice.rules.open.rate", "1000000/1h");
        p.put("sluice.rules.open.on-backend-failure", "allow");
        p.put("sluice.rules.closed.rate", "1000000/1h");
        // After the failover: exact limits again.
        p.put("sluice.rules.exact.rate", "5/1h");
        p.put("sluice.rules.exactc.concurrency", "2");
        return p;
    }

    @Test
    void sentinelFailover() {
        try (RedisSentinel redis = RedisSentinel.start(version, 3, Duration.ofMillis(1000))) {
            String prefix = "fs" + UUID.randomUUID().toString().substring(0, 8);
            String yaml = RedisYaml.file(redis.yaml("scanInterval: 500"));
            try (Sluice sluice = Sluice.fromProperties(rules(yaml, prefix))) {
                int oldMaster = redis.master().port();
                // A hung master (not a dead one): every call to it runs into the backend timeout.
                Thread hang = new Thread(() -> {
                    try {
                        redis.master().command("DEBUG", "SLEEP", "8");
                    } catch (RuntimeException ignored) {
                        // the reply comes after the sleep, or never if the process is killed first
                    }
                }, "debug-sleep");
                hang.setDaemon(true);
                List<Sample> samples = driveThroughFailover(sluice, "key", hang::start);
                assertThat(redis.currentMasterPort()).as("Sentinel promoted the replica").isEqualTo(redis.replica().port());
                report("Sentinel (3 sentinels, quorum 2, down-after 1 s), master hung by DEBUG SLEEP 8", samples, oldMaster);
                assertLimitsExact(sluice, "after-" + UUID.randomUUID(), key -> true);
                assertThat(RedisCluster.keys(redis.replica(), prefix + ":exact:")).as("state on the promoted replica").hasSize(1);
            }
        }
    }

    @Test
    void clusterMasterFailover() {
        try (RedisCluster cluster = RedisCluster.start(version, 3, 1, Duration.ofMillis(1000))) {
            // A raw key whose open and closed limiters live on the same master: that master dies. CRC16 is linear,
            // so for one prefix the two slots differ by a constant and may never share a master whatever the raw
            // key: try a few raw keys per prefix, then a new prefix (each try has a 1 in 3 chance).
            String prefix = null;
            String raw = null;
            RedisProcess victim = null;
            for (int tries = 0; victim == null; tries++) {
                assertThat(tries).as("a prefix and key with both limiters on one master").isLessThan(2_000);
                if (tries % 20 == 0) prefix = "fc" + UUID.randomUUID().toString().substring(0, 8);
                RedisProcess a = cluster.masterOf(rateKey(prefix, "open", "1h", "k" + tries));
                RedisProcess b = cluster.masterOf(rateKey(prefix, "closed", "1h", "k" + tries));
                if (a.port() == b.port()) {
                    raw = "k" + tries;
                    victim = a;
                }
            }
            String yaml = RedisYaml.file(cluster.yaml("scanInterval: 500"));
            try (Sluice sluice = Sluice.fromProperties(rules(yaml, prefix))) {
                RedisProcess dying = victim;
                List<Sample> samples = driveThroughFailover(sluice, raw, dying::kill);
                cluster.awaitHealthy(Duration.ofSeconds(30));
                RedisProcess promoted = cluster.masterOf(rateKey(prefix, "open", "1h", raw));
                assertThat(promoted.port()).as("a replica took over the dead master's slots").isNotEqualTo(dying.port());
                assertThat(RedisCluster.keys(promoted, prefix + ":open:")).as("the stream's limiter is on the promoted node").hasSize(1);
                report("Cluster (3 masters + 3 replicas, cluster-node-timeout 1 s), master killed by SIGKILL", samples, dying.port());
                // Exact again for keys on the promoted node, not just somewhere else in the cluster.
                assertLimitsExact(sluice, "after-" + UUID.randomUUID(),
                        key -> cluster.masterOf(key).port() == promoted.port());
            }
        }
    }

    /** Sluice's Redis key of a rate rule (the layout docs/storage-and-failures.md documents); checked against Redis below. */
    private static String rateKey(String prefix, String rule, String period, String raw) {
        return prefix + ":" + rule + ":sliding-log:" + period + ":" + KeyResolver.hash(raw);
    }

    /**
     * Decides {@code open} and {@code closed} for one key in a loop: healthy, then {@code kill}, then until both
     * have been decided by Redis 20 times in a row again. Every decision is timed.
     */
    private static List<Sample> driveThroughFailover(Sluice sluice, String raw, Runnable kill) {
        Rule open = sluice.rules().get("open").orElseThrow();
        Rule closed = sluice.rules().get("closed").orElseThrow();
        List<Sample> samples = new ArrayList<>();
        // Healthy first: the client connects lazily; wait until it has.
        await().atMost(Duration.ofSeconds(30)).until(() -> decide(sluice, open, raw).outcome() == Decision.Outcome.DECIDED);
        for (int i = 0; i < 20; i++) {
            samples.add(decide(sluice, open, raw));
            samples.add(decide(sluice, closed, raw));
        }
        assertThat(samples).as("healthy before the kill").allMatch(s -> s.outcome() == Decision.Outcome.DECIDED && s.allowed());

        long killedAt = System.currentTimeMillis();
        samples.add(new Sample(killedAt, 0, "FAIL", false, null));
        kill.run();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int decidedInARow = 0;
        boolean failed = false;
        while (!(failed && decidedInARow >= 20)) {
            assertThat(System.nanoTime()).as("back to deciding through Redis within 60 s of the kill").isLessThan(deadline);
            Sample a = decide(sluice, open, raw);
            Sample b = decide(sluice, closed, raw);
            samples.add(a);
            samples.add(b);
            boolean bothDecided = a.outcome() == Decision.Outcome.DECIDED && b.outcome() == Decision.Outcome.DECIDED;
            failed |= !bothDecided;
            decidedInARow = bothDecided ? decidedInARow + 1 : 0;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // pacing of the stream
        }

        for (Sample s : samples) {
            if (s.outcome() == null) continue;
            assertThat(s.latencyMillis()).as("latency of %s", s).isLessThanOrEqualTo(LATENCY_BOUND_MS);
            if (s.outcome() == Decision.Outcome.BACKEND_FAILURE) {
                assertThat(s.allowed()).as("on-backend-failure of %s", s).isEqualTo(s.rule().equals("open"));
            } else {
                assertThat(s.allowed()).as("Redis's answer for %s", s).isTrue();
            }
        }
        assertThat(samples).as("the outage reached the open rule").anyMatch(s -> s.rule().equals("open") && s.outcome() == Decision.Outcome.BACKEND_FAILURE);
        assertThat(samples).as("the outage reached the closed rule").anyMatch(s -> s.rule().equals("closed") && s.outcome() == Decision.Outcome.BACKEND_FAILURE);
        return samples;
    }

    private static Sample decide(Sluice sluice, Rule rule, String raw) {
        long start = System.nanoTime();
        try (Admission a = sluice.admit(List.of(rule), r -> raw).toCompletableFuture().join()) {
            long latency = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            Decision d = a.decisions().get(0);
            return new Sample(System.currentTimeMillis(), latency, rule.name(), a.allowed(), d.outcome());
        }
    }

    /** Exactly 5 of 8 rate decisions and 2 of 3 concurrent permits, all decided by Redis, for a fresh key. */
    private static void assertLimitsExact(Sluice sluice, String base, Predicate<String> onWantedNode) {
        Rule exact = sluice.rules().get("exact").orElseThrow();
        Rule exactc = sluice.rules().get("exactc").orElseThrow();
        String raw = base;
        for (int i = 0; !onWantedNode.test(rateKey(sluice.rules().settings().keyPrefix(), "exact", "1h", raw)); i++) {
            raw = base + "-" + i;
        }
        String key = raw;
        List<Admission> rate = new ArrayList<>();
        for (int i = 0; i < 8; i++) rate.add(sluice.admit(List.of(exact), r -> key).toCompletableFuture().join());
        assertThat(rate).allMatch(a -> a.decisions().get(0).outcome() == Decision.Outcome.DECIDED);
        assertThat(rate.stream().filter(Admission::allowed)).hasSize(5);

        List<Admission> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) held.add(sluice.admit(List.of(exactc), r -> key).toCompletableFuture().join());
        assertThat(held).allMatch(a -> a.decisions().get(0).outcome() == Decision.Outcome.DECIDED);
        assertThat(held.stream().filter(Admission::allowed)).hasSize(2);
        held.forEach(Admission::close);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(sluice.availablePermits(exactc, key).toCompletableFuture().join()).isEqualTo(2));
    }

    /** Prints the outage window and decision latencies for the closing report. */
    private static void report(String topology, List<Sample> samples, int killedPort) {
        long killedAt = samples.stream().filter(s -> s.outcome() == null).findFirst().orElseThrow().atMillis();
        List<Sample> after = samples.stream().filter(s -> s.outcome() != null && s.atMillis() >= killedAt).toList();
        List<Sample> failures = after.stream().filter(s -> s.outcome() == Decision.Outcome.BACKEND_FAILURE).toList();
        long firstFailure = failures.get(0).atMillis() - killedAt;
        long lastFailure = failures.get(failures.size() - 1).atMillis() - killedAt;
        long[] lat = samples.stream().filter(s -> s.outcome() != null).mapToLong(Sample::latencyMillis).sorted().toArray();
        long[] failLat = failures.stream().mapToLong(Sample::latencyMillis).sorted().toArray();
        System.out.printf("FAILOVER %s: failed master on port %d; %d decisions (%d after the kill, %d by on-backend-failure:"
                        + " %d allowed, %d denied); first fallback %d ms and last %d ms after the master failed;"
                        + " latency p50 %d ms, p99 %d ms, max %d ms (fallbacks: p50 %d ms, max %d ms; bound %d ms)%n",
                topology, killedPort, lat.length, after.size(), failures.size(),
                failures.stream().filter(Sample::allowed).count(), failures.stream().filter(s -> !s.allowed()).count(),
                firstFailure, lastFailure, lat[lat.length / 2], lat[(int) (lat.length * 0.99)], lat[lat.length - 1],
                failLat[failLat.length / 2], failLat[failLat.length - 1], LATENCY_BOUND_MS);
    }
}
