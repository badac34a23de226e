package io.sluice.benchmarks;

import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.function.ToDoubleFunction;

/**
 * What one decision of each algorithm costs the Redis server, the inputs of the capacity plan in BENCHMARKS.md:
 * Redis CPU time per decision ({@code INFO cpu}: the script, the networking, the event loop) and the script's
 * own time ({@code INFO commandstats}, {@code EVALSHA} usec per call), with one decision at a time and with
 * {@value #IN_FLIGHT} in flight from one client; and the memory one key's state takes after one decision
 * under a {@code 10/1h} rule ({@code MEMORY USAGE} of every Redis key of the rule, which counts the key, its
 * value and its keyspace entry, divided by the number of client keys). Allowed traffic (a limit never reached) over {@value #KEYS}
 * keys; the algorithms take turns in each round, and the medians of the rounds are printed.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.AlgorithmCost [decisions per pass] [rounds]</pre>
 */
public final class AlgorithmCost {
    static final int KEYS = 10_000;
    static final int IN_FLIGHT = 64;
    private static final int WARM_UP = 5_000;

    private AlgorithmCost() {
    }

    record Cost(Algorithm algorithm, double bytesPerKey, Pass sequential, Pass concurrent) {
    }

    /** Per decision: Redis CPU µs, script µs, scripts; decisions a second seen by the client. */
    record Pass(double redisCpuMicros, double scriptMicros, double scriptsPerDecision, double decisionsPerSecond) {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 30_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Map<Algorithm, List<Cost>> costs = new EnumMap<>(Algorithm.class);
        for (int round = 1; round <= rounds; round++) {
            for (Algorithm a : Algorithm.values()) {
                Cost c = measure(a, n);
                costs.computeIfAbsent(a, x -> new ArrayList<>()).add(c);
                System.out.printf("round %d %-15s %s%n", round, a.id(), c);
            }
        }
        System.out.println("| algorithm | bytes per key | Redis CPU µs/decision, 1 in flight | EVALSHA µs/call | decisions/s | "
                + "Redis CPU µs/decision, " + IN_FLIGHT + " in flight | EVALSHA µs/call | decisions/s |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Algorithm a : Algorithm.values()) {
            List<Cost> c = costs.get(a);
            System.out.printf("| `%s` | %.0f | %.1f | %.1f | %,.0f | %.1f | %.1f | %,.0f |%n", a.id(), median(c, Cost::bytesPerKey),
                    median(c, x -> x.sequential().redisCpuMicros()), median(c, x -> x.sequential().scriptMicros()),
                    median(c, x -> x.sequential().decisionsPerSecond()), median(c, x -> x.concurrent().redisCpuMicros()),
                    median(c, x -> x.concurrent().scriptMicros()), median(c, x -> x.concurrent().decisionsPerSecond()));
        }
        System.out.printf("(medians of %d rounds of %,d decisions per pass)%n", rounds, n);
        BenchRedis.release();
        System.exit(0);
    }

    static Cost measure(Algorithm algorithm, int n) {
        RedissonClient redisson = BenchRedis.client();
        String prefix = "cost-" + UUID.randomUUID().toString().substring(0, 8);
        try (Sluice sluice = Sluice.builder().backend(RedissonBackendProvider.using(redisson)).properties(Map.of(
                "sluice.key-prefix", prefix,
                "sluice.backend-timeout", "10s",
                "sluice.rules.cost.rate", "1000000000/10s",
                "sluice.rules.cost.algorithm", algorithm.id(),
                "sluice.rules.cost.key", "user",
                // For the memory: a rule whose state outlives the measurement after one decision (a bucket that is
                // full again, such as the never-reached rule's after a few ns, has nothing left to keep).
                "sluice.rules.memory.rate", "10/1h",
                "sluice.rules.memory.algorithm", algorithm.id(),
                "sluice.rules.memory.key", "user")).build()) {
            List<Rule> rules = List.of(sluice.rules().get("cost").orElseThrow());
            List<Rule> memoryRules = List.of(sluice.rules().get("memory").orElseThrow());
            KeySource[] keys = new KeySource[KEYS];
            for (int i = 0; i < KEYS; i++) keys[i] = KeySource.fixed(prefix + "-user-" + i);
            // Scripts loaded and code compiled on keys of their own.
            for (int i = 0; i < WARM_UP; i++) decide(sluice, rules, KeySource.fixed("warm-" + (i % 100)));
            redisson.getKeys().deleteByPattern("*" + prefix + "*");
            for (KeySource k : keys) decide(sluice, memoryRules, k);
            double bytesPerKey = bytes(redisson, prefix + ":memory:", prefix + ":{memory:") / (double) KEYS;
            Pass sequential = pass(redisson, n, () -> {
                for (int i = 0; i < n; i++) decide(sluice, rules, keys[i % KEYS]);
            });
            Pass concurrent = pass(redisson, n, () -> {
                Semaphore inFlight = new Semaphore(IN_FLIGHT);
                for (int i = 0; i < n; i++) {
                    inFlight.acquireUninterruptibly();
                    sluice.admit(rules, keys[i % KEYS]).whenComplete((a, e) -> {
                        if (a != null) a.close();
                        inFlight.release();
                    });
                }
                inFlight.acquireUninterruptibly(IN_FLIGHT);
            });
            if (sluice.stats().failedOpen() + sluice.stats().failedClosed() > 0) {
                System.err.println(algorithm.id() + ": decisions made without Redis: " + sluice.stats());
            }
            return new Cost(algorithm, bytesPerKey, sequential, concurrent);
        } finally {
            redisson.getKeys().deleteByPattern("*" + prefix + "*");
        }
    }

    /** MEMORY USAGE of every key whose name holds one of the two markers, summed in Redis (a benchmark's own keyspace). */
    private static long bytes(RedissonClient redisson, String marker, String otherMarker) {
        Long total = redisson.getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_ONLY,
                "local total = 0 for _, m in ipairs(ARGV) do for _, k in ipairs(redis.call('keys', '*' .. m .. '*')) do "
                        + "total = total + redis.call('memory', 'usage', k, 'samples', 0) end end return total",
                RScript.ReturnType.LONG, List.of(), marker, otherMarker);
        return total == null ? 0 : total;
    }

    private static double median(List<Cost> costs, ToDoubleFunction<Cost> f) {
        double[] v = costs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static void decide(Sluice sluice, List<Rule> rules, KeySource key) {
        sluice.admit(rules, key).toCompletableFuture().join().close();
    }

    private static Pass pass(RedissonClient redisson, int n, Runnable decisions) {
        RedisCounters before = RedisCounters.read(redisson);
        long start = System.nanoTime();
        decisions.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        RedisCounters after = RedisCounters.read(redisson);
        long scripts = after.scriptCalls() - before.scriptCalls();
        return new Pass((after.cpuMicros() - before.cpuMicros()) / (double) n,
                scripts == 0 ? 0 : (after.scriptMicros() - before.scriptMicros()) / (double) scripts, scripts / (double) n, n / seconds);
    }
}
