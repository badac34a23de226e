package io.sluice.benchmarks;

import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;

import java.util.Map;

/**
 * Cumulative counters of a single Redis server, read before and after a measured pass: its CPU time
 * ({@code INFO cpu}, user + system), the scripts it ran and their time ({@code INFO commandstats},
 * {@code EVAL} + {@code EVALSHA}), and its memory ({@code INFO memory used_memory}).
 *
 * @param cpuMicros    Redis's CPU time so far, µs
 * @param scriptCalls  scripts run so far
 * @param scriptMicros their time, µs (Redis measures it around the call: inflated on a loaded machine)
 * @param usedMemory   bytes allocated
 */
public record RedisCounters(long cpuMicros, long scriptCalls, long scriptMicros, long usedMemory) {
    public static RedisCounters read(RedissonClient client) {
        RedisNode node = client.getRedisNodes(RedisNodes.SINGLE).getInstance();
        Map<String, String> cpu = node.info(RedisNode.InfoSection.CPU);
        long micros = Math.round((Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"))) * 1e6);
        long calls = 0;
        long usec = 0;
        for (Map.Entry<String, String> e : node.info(RedisNode.InfoSection.COMMANDSTATS).entrySet()) {
            if (e.getKey().equals("cmdstat_evalsha") || e.getKey().equals("cmdstat_eval")) {
                calls += Long.parseLong(e.getValue().replaceFirst("^calls=(\\d+),.*$", "$1"));
                usec += Long.parseLong(e.getValue().replaceFirst("^.*usec=(\\d+),.*$", "$1"));
            }
        }
        long memory = Long.parseLong(node.info(RedisNode.InfoSection.MEMORY).get("used_memory"));
        return new RedisCounters(micros, calls, usec, memory);
    }
}
