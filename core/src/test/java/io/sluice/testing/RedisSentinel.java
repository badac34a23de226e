package io.sluice.testing;

import org.awaitility.Awaitility;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Sentinel setup of {@link RedisProcess}es: a master, one replica and {@code n} Sentinels watching
 * master {@value #MASTER_NAME} with a quorum of {@code n / 2 + 1}, declaring it down after {@code downAfter}.
 */
public final class RedisSentinel implements AutoCloseable {
    public static final String MASTER_NAME = "sluice-master";

    private final RedisProcess master;
    private final RedisProcess replica;
    private final List<RedisProcess> sentinels = new ArrayList<>();

    private RedisSentinel(RedisProcess master, RedisProcess replica) {
        this.master = master;
        this.replica = replica;
    }

    /** Starts everything and waits until each Sentinel sees the replica and every other Sentinel. */
    public static RedisSentinel start(int sentinelCount, Duration downAfter) {
        return start(RedisVersion.REDIS_6_2, sentinelCount, downAfter);
    }

    /** {@link #start(int, Duration)} with every process of {@code version}. */
    public static RedisSentinel start(RedisVersion version, int sentinelCount, Duration downAfter) {
        RedisProcess master = version.start();
        RedisSentinel setup = null;
        try {
            setup = new RedisSentinel(master, version.start("replicaof 127.0.0.1 " + master.port()));
            int quorum = sentinelCount / 2 + 1;
            for (int i = 0; i < sentinelCount; i++) {
                setup.sentinels.add(RedisProcess.startSentinel(version,
                        "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " " + quorum,
                        "sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfter.toMillis(),
                        "sentinel failover-timeout " + MASTER_NAME + " 10000",
                        "sentinel parallel-syncs " + MASTER_NAME + " 1"));
            }
            RedisSentinel s = setup;
            Awaitility.await("replica in sync and every Sentinel sees the replica and the others").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
                if (!String.valueOf(s.replica.command("INFO", "replication")).contains("master_link_status:up")) return false;
                for (RedisProcess sentinel : s.sentinels) {
                    if (((List<?>) sentinel.command("SENTINEL", "REPLICAS", MASTER_NAME)).isEmpty()) return false;
                    if (((List<?>) sentinel.command("SENTINEL", "SENTINELS", MASTER_NAME)).size() != sentinelCount - 1) return false;
                }
                return true;
            });
            return setup;
        } catch (RuntimeException | Error e) {
            if (setup != null) setup.close();
            else master.close();
            throw e;
        }
    }

    public RedisProcess master() {
        return master;
    }

    public RedisProcess replica() {
        return replica;
    }

    public List<RedisProcess> sentinels() {
        return List.copyOf(sentinels);
    }

    /** The port of the master as the first live Sentinel names it now. */
    public int currentMasterPort() {
        for (RedisProcess s : sentinels) {
            if (!s.isAlive()) continue;
            List<?> addr = (List<?>) s.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
            return Integer.parseInt(String.valueOf(addr.get(1)));
        }
        throw new IllegalStateException("no live Sentinel");
    }

    /** Redisson's {@code sentinelServersConfig} YAML for this setup; {@code extra} lines go inside it. */
    public String yaml(String... extra) {
        StringBuilder y = new StringBuilder("sentinelServersConfig:\n  masterName: \"" + MASTER_NAME + "\"\n  sentinelAddresses:\n");
        for (RedisProcess s : sentinels) y.append("    - \"").append(s.address()).append("\"\n");
        for (String line : extra) y.append("  ").append(line).append('\n');
        return y.toString();
    }

    @Override
    public void close() {
        sentinels.forEach(RedisProcess::close);
        replica.close();
        master.close();
    }
}
