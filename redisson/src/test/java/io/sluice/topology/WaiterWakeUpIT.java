package io.sluice.topology;

import io.sluice.Admission;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisCluster;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisSentinel;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.RedisYaml;
import io.sluice.testing.Resp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A request waiting for a concurrency permit ({@code wait=10s}) is admitted within milliseconds of the
 * holder's release, on every topology (single, 3-master Cluster, Sentinel) and Redis version: the release script
 * must wake Sluice's waiting acquirer on the channel it listens on (a sharded one on a Redis 7 Cluster). The
 * lease (1 h) and the wait (10 s) are far beyond the bound, so only the wake-up can admit the waiter in time.
 * A waiter that nothing wakes still gets one last try when its wait ends.
 *
 * <p>Prints the measured wake-up latencies (release called → waiter admitted) per topology and version.
 */
@ParameterizedClass(name = "{0} on {1}")
@MethodSource("topologies")
class WaiterWakeUpIT {
    /** Far below the wait: a waiter admitted later than this was not woken by the release. */
    private static final Duration WAKE_UP_BOUND = Duration.ofMillis(1_500);
    private static final int ROUNDS = 10;
    private static final Map<String, String> FIGURES = new ConcurrentSkipListMap<>();

    enum Topology { SINGLE, CLUSTER, SENTINEL }

    @Parameter(0)
    Topology topology;
    @Parameter(1)
    RedisVersion version;

    private static Redis redis;
    private static Sluice sluice;
    private static String prefix;
    /** How Redisson subscribed the last waiter, for the report. */
    private String subscription;

    static Stream<Arguments> topologies() {
        List<Arguments> all = new ArrayList<>();
        for (RedisVersion v : RedisVersion.values()) {
            for (Topology t : Topology.values()) all.add(Arguments.of(t, v));
        }
        // -Dsluice.test.only=CLUSTER/REDIS_7 runs one variant (the argLine of failsafe passes it on).
        String only = System.getProperty("sluice.test.only");
        if (only != null) {
            String[] parts = only.split("/");
            return Stream.of(Arguments.of(Topology.valueOf(parts[0]), RedisVersion.valueOf(parts[1])));
        }
        return all.stream();
    }

    /** The data nodes of one topology, and the Redisson YAML that reaches them. */
    private record Redis(List<RedisProcess> dataNodes, String yaml, AutoCloseable owned) {
    }

    @BeforeParameterizedClassInvocation
    static void start(Topology topology, RedisVersion version) {
        redis = switch (topology) {
            case SINGLE -> {
                RedisProcess single = version.start();
                yield new Redis(List.of(single), "singleServerConfig:\n  address: \"" + single.address() + "\"\n", single);
            }
            case CLUSTER -> {
                RedisCluster cluster = RedisCluster.shared(version);
                yield new Redis(cluster.nodes(), cluster.yaml(), null);
            }
            case SENTINEL -> {
                RedisSentinel sentinel = RedisSentinel.start(version, 3, Duration.ofSeconds(5));
                yield new Redis(List.of(sentinel.master(), sentinel.replica()), sentinel.yaml(), sentinel);
            }
        };
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.config", RedisYaml.file(redis.yaml()));
        prefix = "wake" + UUID.randomUUID().toString().substring(0, 8);
        p.put("sluice.key-prefix", prefix);
        p.put("sluice.backend-timeout", "5s"); // a loaded 2-core machine; the bound below is what is measured
        p.put("sluice.rules.one.concurrency", "1");
        p.put("sluice.rules.one.wait", "10s");
        p.put("sluice.rules.one.lease", "1h");
        p.put("sluice.rules.short.concurrency", "1");
        p.put("sluice.rules.short.wait", "5s");
        p.put("sluice.rules.short.lease", "1h");
        sluice = Sluice.fromProperties(p);
        Connected.await(sluice);
    }

    @AfterParameterizedClassInvocation
    static void stop() throws Exception {
        if (sluice != null) sluice.close();
        if (redis != null && redis.owned() != null) redis.owned().close();
        sluice = null;
        redis = null;
    }

    @AfterAll
    static void report() {
        FIGURES.forEach((what, figure) -> System.out.println("wake-up latency, " + what + ": " + figure));
    }

    @Test
    void aWaiterIsAdmittedWithinMillisecondsOfTheRelease() {
        Rule one = sluice.rules().get("one").orElseThrow();
        List<Long> latencies = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String key = "k" + round + "-" + UUID.randomUUID();
            Admission holder = admit(one, key);
            assertThat(holder.allowed()).isTrue();
            CompletableFuture<Admission> waiter = sluice.admit(List.of(one), r -> key).toCompletableFuture();
            awaitSubscribedWaiter();
            assertThat(waiter).as("waiting while the permit is held").isNotDone();

            long released = System.nanoTime();
            holder.close();
            Admission admitted = waiter.orTimeout(15, TimeUnit.SECONDS).join();
            long latency = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
            assertThat(admitted.allowed()).as("the waiter of round %d", round).isTrue();
            assertThat(Duration.ofMillis(latency)).as("release to admission, round %d", round).isLessThan(WAKE_UP_BOUND);
            latencies.add(latency);
            admitted.close();
        }
        latencies.sort(null);
        FIGURES.put(topology + " on " + version, "median " + latencies.get(ROUNDS / 2) + " ms, max "
                + latencies.get(ROUNDS - 1) + " ms over " + ROUNDS + " rounds (waiters subscribed with " + subscription + ")");
    }

    @Test
    void aWaiterNobodyWakesGetsOneLastTryWhenItsWaitEnds() {
        Rule rule = sluice.rules().get("short").orElseThrow();
        String key = "silent-" + UUID.randomUUID();
        Admission holder = admit(rule, key);
        assertThat(holder.allowed()).isTrue();
        CompletableFuture<Admission> waiter = sluice.admit(List.of(rule), r -> key).toCompletableFuture();
        String name = awaitSubscribedWaiter();
        assertThat(waiter).as("waiting while the permit is held").isNotDone();

        // Free the permit behind Sluice's back, without the message that would wake the waiter.
        RedisProcess master = masterOf(name);
        String leases = "{" + name + "}:timeout";
        assertThat(master.command("ZREMRANGEBYRANK", leases, "0", "-1")).isEqualTo(1L); // permit ids are binary
        master.command("INCRBY", name, "1");

        Admission admitted = waiter.orTimeout(15, TimeUnit.SECONDS).join();
        assertThat(admitted.allowed()).as("admitted at the end of its wait, not rejected: %s", admitted.decisions()).isTrue();
        admitted.close();
    }

    private static Admission admit(Rule rule, String key) {
        return sluice.admit(List.of(rule), r -> key).toCompletableFuture().join();
    }

    /** Waits until Redis shows a subscriber on the semaphore's wake-up channel; returns the semaphore's key. */
    private String awaitSubscribedWaiter() {
        String name = semaphoreKey();
        String channel = "redisson_sc:{" + name + "}:held";
        await("a waiter subscribed to " + channel).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(5))
                .until(() -> subscribers(channel, "NUMSUB") + subscribers(channel, "SHARDNUMSUB") > 0);
        subscription = subscribers(channel, "SHARDNUMSUB") > 0 ? "SSUBSCRIBE" : "SUBSCRIBE";
        return name;
    }

    /** Subscribers of a channel over the data nodes: {@code NUMSUB} (SUBSCRIBE) or {@code SHARDNUMSUB} (SSUBSCRIBE, Redis 7). */
    private long subscribers(String channel, String kind) {
        if (kind.equals("SHARDNUMSUB") && version == RedisVersion.REDIS_6_2) return 0;
        long count = 0;
        for (RedisProcess node : redis.dataNodes()) {
            if (node.isAlive()) count += (Long) ((List<?>) node.command("PUBSUB", kind, channel)).get(1);
        }
        return count;
    }

    /** The one semaphore with a live lease (each round's key is new, and the last round's permits are back). */
    private String semaphoreKey() {
        List<String> found = new ArrayList<>();
        await("the holder's lease in Redis").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(5)).until(() -> {
            found.clear();
            for (RedisProcess node : masters()) {
                for (Object k : (List<?>) node.command("KEYS", "{" + prefix + ":*}:timeout")) {
                    String leases = String.valueOf(k);
                    if ((Long) node.command("ZCARD", leases) > 0) found.add(leases.substring(1, leases.lastIndexOf("}:timeout")));
                }
            }
            return found.size() == 1;
        });
        return found.get(0);
    }

    private List<RedisProcess> masters() {
        return redis.dataNodes().stream().filter(RedisProcess::isAlive)
                .filter(n -> String.valueOf(n.command("INFO", "replication")).contains("role:master")).toList();
    }

    private RedisProcess masterOf(String key) {
        for (RedisProcess m : masters()) {
            try {
                if ((Long) m.command("EXISTS", key) == 1) return m;
            } catch (Resp.RedisError moved) {
                // a cluster master that does not serve the key's slot
            }
        }
        throw new IllegalStateException("no master holds " + key);
    }
}
