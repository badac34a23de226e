package io.sluice.testing;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster of {@link RedisProcess}es: masters sharing the 16384 slots evenly, optionally a replica
 * per master. Built the way {@code redis-cli --cluster create} does it, over plain RESP: CLUSTER ADDSLOTS on
 * each master, CLUSTER MEET, CLUSTER REPLICATE, then waiting (with a deadline) until every node reports
 * {@code cluster_state:ok} and agrees on who serves every slot.
 *
 * <p>{@link #shared()} is one 3-master cluster per test JVM for tests that do not break it; failover
 * tests start their own.
 */
public final class RedisCluster implements AutoCloseable {
    public static final int SLOTS = 16384;
    private static final Map<RedisVersion, RedisCluster> SHARED = new EnumMap<>(RedisVersion.class);

    private final List<RedisProcess> nodes = new ArrayList<>();
    private final int masterCount;

    private RedisCluster(int masterCount) {
        this.masterCount = masterCount;
    }

    /** One 3-master Redis 6.2 cluster for this JVM, started on first use and killed at exit. Do not break it. */
    public static RedisCluster shared() {
        return shared(RedisVersion.REDIS_6_2);
    }

    /** One 3-master cluster of {@code version} for this JVM, started on first use and killed at exit. Do not break it. */
    public static synchronized RedisCluster shared(RedisVersion version) {
        RedisCluster cluster = SHARED.get(version);
        if (cluster == null) {
            cluster = start(version, 3, 0, Duration.ofSeconds(2));
            SHARED.put(version, cluster);
        }
        return cluster;
    }

    /** {@link #start(RedisVersion, int, int, Duration)} on Redis 6.2. */
    public static RedisCluster start(int masters, int replicasPerMaster, Duration nodeTimeout) {
        return start(RedisVersion.REDIS_6_2, masters, replicasPerMaster, nodeTimeout);
    }

    /**
     * Starts {@code masters} masters of {@code version} and {@code replicasPerMaster} replicas of each, and waits until the cluster
     * is healthy. {@code nodeTimeout} is {@code cluster-node-timeout}: how long a silent master takes to be
     * declared failed (and its replica promoted).
     */
    public static RedisCluster start(RedisVersion version, int masters, int replicasPerMaster, Duration nodeTimeout) {
        version.binary(); // skips or fails before anything is started
        RedisCluster cluster = new RedisCluster(masters);
        try {
            int total = masters * (1 + replicasPerMaster);
            for (int i = 0; i < total; i++) {
                cluster.nodes.add(RedisProcess.start(version, "cluster-enabled yes", "cluster-config-file nodes.conf",
                        "cluster-node-timeout " + nodeTimeout.toMillis(),
                        // Failover tests kill masters: a replica promotes whatever it had, however stale.
                        "cluster-replica-validity-factor 0"));
            }
            cluster.create(masters, replicasPerMaster);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void create(int masters, int replicasPerMaster) {
        for (int m = 0; m < masters; m++) {
            int from = m * SLOTS / masters;
            int to = (m + 1) * SLOTS / masters - 1;
            List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            // Redis 6.2 has no ADDSLOTSRANGE: name every slot.
            for (int s = from; s <= to; s++) args.add(Integer.toString(s));
            nodes.get(m).command(args.toArray(String[]::new));
        }
        RedisProcess first = nodes.get(0);
        for (RedisProcess n : nodes.subList(1, nodes.size())) {
            first.command("CLUSTER", "MEET", "127.0.0.1", Integer.toString(n.port()));
        }
        await(Duration.ofSeconds(30), "every node knows every other", () ->
                nodes.stream().allMatch(n -> nodesOf(n).size() == nodes.size()));
        for (int r = 0; r < replicasPerMaster; r++) {
            for (int m = 0; m < masters; m++) {
                RedisProcess replica = nodes.get(masters + r * masters + m);
                replica.command("CLUSTER", "REPLICATE", id(nodes.get(m)));
            }
        }
        awaitHealthy(Duration.ofSeconds(60));
    }

    /**
     * Waits until every live node says {@code cluster_state:ok}, every slot is served by a live master, and
     * every replica's link to its master is up.
     */
    public void awaitHealthy(Duration timeout) {
        await(timeout, "cluster_state:ok on every node with all slots served by live masters", () -> {
            for (RedisProcess n : live()) {
                if (!String.valueOf(n.command("CLUSTER", "INFO")).contains("cluster_state:ok")) return false;
                if (coveredSlots(n) != SLOTS) return false;
                String replication = String.valueOf(n.command("INFO", "replication"));
                if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) return false;
            }
            return true;
        });
    }

    /** All nodes, masters first (as created; roles change on failover). */
    public List<RedisProcess> nodes() {
        return List.copyOf(nodes);
    }

    /** The live nodes that are masters now. */
    public List<RedisProcess> masters() {
        return live().stream()
                .filter(n -> String.valueOf(n.command("INFO", "replication")).contains("role:master"))
                .collect(Collectors.toList());
    }

    /** The live nodes. */
    public List<RedisProcess> live() {
        return nodes.stream().filter(RedisProcess::isAlive).collect(Collectors.toList());
    }

    public int masterCount() {
        return masterCount;
    }

    /** The cluster slot of a key, as the server computes it (hash tags included). */
    public int slotOf(String key) {
        return ((Long) live().get(0).command("CLUSTER", "KEYSLOT", key)).intValue();
    }

    /** The live master serving a key's slot now. */
    public RedisProcess masterOf(String key) {
        int slot = slotOf(key);
        for (RedisProcess m : masters()) {
            for (Object range : (List<?>) m.command("CLUSTER", "SLOTS")) {
                List<?> r = (List<?>) range;
                long from = (Long) r.get(0);
                long to = (Long) r.get(1);
                int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
                if (slot >= from && slot <= to && port == m.port()) return m;
            }
        }
        throw new IllegalStateException("no live master serves slot " + slot);
    }

    /** Every key on a node whose name starts with {@code prefix} (test data sets are small). */
    @SuppressWarnings("unchecked")
    public static List<String> keys(RedisProcess node, String prefix) {
        return (List<String>) node.command("KEYS", prefix + "*");
    }

    /** Redisson's {@code clusterServersConfig} YAML for this cluster; {@code extra} lines go inside it. */
    public String yaml(String... extra) {
        StringBuilder y = new StringBuilder("clusterServersConfig:\n  nodeAddresses:\n");
        for (RedisProcess n : nodes) y.append("    - \"").append(n.address()).append("\"\n");
        for (String line : extra) y.append("  ").append(line).append('\n');
        return y.toString();
    }

    /** The node id of a node (CLUSTER MYID). */
    public static String id(RedisProcess node) {
        return String.valueOf(node.command("CLUSTER", "MYID"));
    }

    /** Node ids per line of {@code CLUSTER NODES}. */
    private static Map<String, String> nodesOf(RedisProcess n) {
        Map<String, String> byId = new TreeMap<>();
        for (String line : String.valueOf(n.command("CLUSTER", "NODES")).split("\n")) {
            if (!line.isBlank()) byId.put(line.substring(0, line.indexOf(' ')), line);
        }
        return byId;
    }

    /** Slots served by a live master according to {@code n}. */
    private int coveredSlots(RedisProcess n) {
        List<Integer> livePorts = live().stream().map(RedisProcess::port).collect(Collectors.toList());
        int covered = 0;
        for (Object range : (List<?>) n.command("CLUSTER", "SLOTS")) {
            List<?> r = (List<?>) range;
            int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
            if (livePorts.contains(port)) covered += (int) ((Long) r.get(1) - (Long) r.get(0) + 1);
        }
        return covered;
    }

    private void await(Duration timeout, String what, java.util.function.BooleanSupplier condition) {
        try {
            Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions() // a node still starting or failing over
                    .until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            StringBuilder state = new StringBuilder();
            for (RedisProcess n : live()) {
                try {
                    state.append("\n--- node ").append(n.port()).append(":\n").append(n.command("CLUSTER", "NODES"));
                } catch (RuntimeException unreadable) {
                    state.append("\n--- node ").append(n.port()).append(": ").append(unreadable);
                }
            }
            throw new IllegalStateException("Redis Cluster: " + e.getMessage() + state, e);
        }
    }

    /** Kills every node and deletes their directories. */
    @Override
    public void close() {
        nodes.forEach(RedisProcess::close);
    }
}
