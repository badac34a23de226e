package io.sluice.benchmarks;

import io.sluice.benchmarks.RateFixture.SystemUnderTest;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;

import java.util.Map;

/**
 * CPU time per rate decision, for each system on a hot key, one caller: the redis-server process's (from
 * {@code INFO cpu}) and the client JVM's (process CPU time: the caller, Redisson's threads, JIT and GC).
 * Unlike throughput, barely moved by other load on the machine.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.RedisCost [decisions]</pre>
 */
public final class RedisCost {
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        System.setProperty("sluice.bench.keep-client", "true");
        for (String traffic : new String[]{"allowed", "rejected"}) {
            for (SystemUnderTest system : SystemUnderTest.values()) {
                try (RateFixture f = new RateFixture(system, 1, traffic.equals("rejected"))) {
                    for (int i = 0; i < 20_000; i++) f.decide(0);
                    long[] before = totals();
                    Map<String, String> snapshot = stats();
                    long cpu = processCpuNanos();
                    for (int i = 0; i < n; i++) f.decide(0);
                    long cpuNanos = processCpuNanos() - cpu;
                    long[] after = totals();
                    if (System.getProperty("breakdown") != null) breakdown(snapshot, n);
                    System.out.printf("%-9s %-26s Redis CPU %6.2f µs, client CPU %6.2f µs per decision; %5.2f scripts per decision%n",
                            traffic, system, (after[0] - before[0]) / (double) n, cpuNanos / 1e3 / n, (after[2] - before[2]) / (double) n);
                }
            }
        }
        System.exit(0);
    }

    /** CPU time of this whole JVM (the caller and Redisson's threads). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static Map<String, String> stats() {
        return BenchRedis.client().getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.COMMANDSTATS);
    }

    private static void breakdown(Map<String, String> before, int n) {
        for (Map.Entry<String, String> e : stats().entrySet()) {
            String b = before.getOrDefault(e.getKey(), "calls=0,usec=0,");
            long calls = Long.parseLong(e.getValue().replaceFirst("^calls=(\\d+),.*$", "$1")) - Long.parseLong(b.replaceFirst("^calls=(\\d+),.*$", "$1"));
            long usec = Long.parseLong(e.getValue().replaceFirst("^.*usec=(\\d+),.*$", "$1")) - Long.parseLong(b.replaceFirst("^.*usec=(\\d+),.*$", "$1"));
            if (calls > n / 10) System.out.printf("      %-22s %5.2f calls, %6.2f µs per decision%n", e.getKey(), calls / (double) n, usec / (double) n);
        }
    }

    /** Redis's CPU time (user + system, µs, from INFO cpu) and the scripts clients ran. */
    private static long[] totals() {
        Map<String, String> cpu = BenchRedis.client().getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.CPU);
        long usec = Math.round((Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"))) * 1e6);
        long scripts = 0;
        for (Map.Entry<String, String> e : stats().entrySet()) {
            if (e.getKey().equals("cmdstat_eval") || e.getKey().equals("cmdstat_evalsha")) {
                scripts += Long.parseLong(e.getValue().replaceFirst("^calls=(\\d+),.*$", "$1"));
            }
        }
        return new long[]{usec, 0, scripts};
    }
}
