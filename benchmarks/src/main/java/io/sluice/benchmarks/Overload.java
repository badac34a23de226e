package io.sluice.benchmarks;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rule;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * How much of a hot key's limit is used under overload: one {@code global} rule ({@code 20000/1s} by default),
 * many callers asking far more than it admits, for some seconds. Reports the admitted share of the limit over
 * the steady seconds (the first two are left out: they start from a full limit, a token bucket's whole burst)
 * and the most admitted in any rolling second of those as this process saw it (admissions stamped when their answer arrived, so a rolling second can
 * show a few more than the limit from answer jitter; the limit itself is Redis's).
 *
 * <p>{@code --servers 3} runs three engines (servers) in this process on the one Redis, the callers taken in turn by
 * each, after they have counted each other (a heartbeat, 5 s): the limit is then shared as across three machines.
 * {@code --prefetch} sets the rule's {@code prefetch} ({@code auto}, the default, {@code off} or a number); a comma-separated
 * list runs each, algorithm by algorithm, so that {@code --prefetch auto,off} compares the two in one run.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.Overload [--callers 32] [--seconds 6]
 *     [--rate 20000/1s] [--timeout 10s] [--algorithm sliding-log,token-bucket,fixed-window,sliding-window]
 *     [--servers 1] [--prefetch auto,off]</pre>
 */
public final class Overload {
    private static final long SETTLE_NANOS = 2_000_000_000L;
    /** Long enough for every server to announce itself once more after the others started (a 5 s heartbeat). */
    private static final long COUNTED_MILLIS = 6_000;

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        int callers = Integer.parseInt(a.getOrDefault("callers", "32"));
        int seconds = Integer.parseInt(a.getOrDefault("seconds", "6"));
        String rate = a.getOrDefault("rate", "20000/1s");
        // Long by default: on a loaded machine a 100 ms deadline turns late answers into failure-policy admissions,
        // which measures the machine, not the shield (the last column counts them).
        String timeout = a.getOrDefault("timeout", "10s");
        int servers = Integer.parseInt(a.getOrDefault("servers", "1"));
        String[] prefetches = a.getOrDefault("prefetch", "auto").split(",");
        long limit = Long.parseLong(rate.substring(0, rate.indexOf('/')));
        System.out.println("| algorithm | servers | prefetch | callers | decisions/s | admitted/s (steady) | share of the limit | most in a rolling second | by the failure policy |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (String algorithm : a.getOrDefault("algorithm", "sliding-log").split(",")) {
            for (String prefetch : prefetches) {
                System.out.println(run(algorithm, servers, prefetch, callers, seconds, rate, limit, timeout));
            }
        }
        System.exit(0);
    }

    /** One row of the table: {@code callers} asking {@code rate} for {@code seconds} steady seconds. */
    static String run(String algorithm, int servers, String prefetch, int callers, int seconds, String rate, long limit,
                      String timeout) throws InterruptedException {
        String prefix = "overload-" + UUID.randomUUID().toString().substring(0, 8);
        List<Sluice> engines = new ArrayList<>();
        try {
            for (int i = 0; i < servers; i++) {
                engines.add(Sluice.builder().backend(RedissonBackendProvider.using(BenchRedis.client())).properties(Map.of(
                        "sluice.key-prefix", prefix,
                        "sluice.backend-timeout", timeout,
                        "sluice.rules.hot.rate", rate,
                        "sluice.rules.hot.key", "global",
                        "sluice.rules.hot.prefetch", prefetch,
                        "sluice.rules.hot.algorithm", algorithm)).build());
            }
            return measure(algorithm, engines, prefetch, callers, seconds, limit);
        } finally {
            for (Sluice s : engines) s.close();
        }
    }

    /** Warms the engines up, then has the callers ask through them in turn and measures what was admitted. */
    private static String measure(String algorithm, List<Sluice> engines, String prefetch, int callers, int seconds, long limit)
            throws InterruptedException {
        KeySource key = KeySource.fixed("*");
        // Warm up (connections, JIT) on another key, then measure on a fresh one.
        long warmEnd = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < warmEnd) {
            for (Sluice s : engines) s.admit(hot(s), KeySource.fixed("warm-up")).toCompletableFuture().join();
        }
        if (engines.size() > 1) Thread.sleep(COUNTED_MILLIS);
        long start = System.nanoTime();
        // The first seconds are left out: they start from a full limit (a token bucket's whole burst).
        long steadyFrom = start + SETTLE_NANOS;
        long end = steadyFrom + seconds * 1_000_000_000L;
        LongAdder decisions = new LongAdder();
        LongAdder byPolicy = new LongAdder();
        List<long[]> stamps = new ArrayList<>();
        List<int[]> counts = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < callers; t++) {
            long[] mine = new long[(int) (limit * (seconds + 4))];
            int[] n = new int[1];
            Sluice sluice = engines.get(t % engines.size());
            List<Rule> rules = hot(sluice);
            stamps.add(mine);
            counts.add(n);
            Thread th = new Thread(() -> {
                while (System.nanoTime() < end) {
                    Admission adm = sluice.admit(rules, key).toCompletableFuture().join();
                    decisions.increment();
                    if (adm.decisions().get(0).outcome() != Decision.Outcome.DECIDED) byPolicy.increment();
                    if (adm.allowed() && n[0] < mine.length) mine[n[0]++] = System.nanoTime();
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) th.join();
        int total = 0;
        for (int[] n : counts) total += n[0];
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < callers; t++) {
            System.arraycopy(stamps.get(t), 0, all, at, counts.get(t)[0]);
            at += counts.get(t)[0];
        }
        Arrays.sort(all);
        long[] steady = Arrays.stream(all).filter(s -> s >= steadyFrom && s < end).toArray();
        double perSecond = steady.length / (double) seconds;
        long most = 0;
        for (int i = 0, j = 0; i < steady.length; i++) {
            while (steady[i] - steady[j] >= 1_000_000_000L) j++;
            most = Math.max(most, i - j + 1);
        }
        return String.format("| %s | %d | %s | %d | %,.0f | %,.0f | **%.1f %%** | %,d | %d |", algorithm, engines.size(), prefetch, callers,
                decisions.sum() * 1e9 / (end - start), perSecond, 100 * perSecond / limit, most, byPolicy.sum());
    }

    private static List<Rule> hot(Sluice sluice) {
        return List.of(sluice.rules().get("hot").orElseThrow());
    }
}
