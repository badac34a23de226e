package io.sluice.benchmarks;

import io.sluice.benchmarks.RateFixture.SystemUnderTest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Rate decisions per second with the systems interleaved: short slices of each system in turn, for several
 * rounds, so every ratio compares slices a few seconds apart. On a shared, noisy machine, where load swings
 * between one JMH benchmark and the next, this gives steadier ratios than JMH's one-benchmark-after-another.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.Interleaved [--rounds 5] [--slice-ms 1000]
 *     [--threads 1,8,64] [--keys 1,10000] [--traffic allowed,rejected]</pre>
 */
public final class Interleaved {
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        System.setProperty("sluice.bench.keep-client", "true");
        int rounds = Integer.parseInt(a.getOrDefault("rounds", "5"));
        long sliceMs = Long.parseLong(a.getOrDefault("slice-ms", "1000"));
        System.out.println("| threads | keys | traffic | floor | tryAcquire | tryAcquire+availablePermits | Bucket4j | Bucket4j batching | Sluice | Sluice prefetch=" + RateFixture.PREFETCH + " | Sluice / tryAcquire | Sluice / Bucket4j | Sluice / Bucket4j batching | tryAcquire+available / tryAcquire | Sluice prefetch / tryAcquire |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (String traffic : a.getOrDefault("traffic", "allowed,rejected").split(",")) {
            for (String k : a.getOrDefault("keys", "1,10000").split(",")) {
                int keys = Integer.parseInt(k);
                Map<SystemUnderTest, RateFixture> fixtures = new EnumMap<>(SystemUnderTest.class);
                for (SystemUnderTest s : SystemUnderTest.values()) fixtures.put(s, new RateFixture(s, keys, traffic.equals("rejected")));
                try {
                    for (String t : a.getOrDefault("threads", "1,8,64").split(",")) {
                        int threads = Integer.parseInt(t);
                        Map<SystemUnderTest, List<Double>> rates = new EnumMap<>(SystemUnderTest.class);
                        List<Double> vsTry = new ArrayList<>();
                        List<Double> vsBucket = new ArrayList<>();
                        List<Double> vsBatching = new ArrayList<>();
                        List<Double> naiveVsTry = new ArrayList<>();
                        List<Double> prefetchVsTry = new ArrayList<>();
                        for (SystemUnderTest s : SystemUnderTest.values()) slice(fixtures.get(s), threads, sliceMs / 2); // warm-up
                        for (int r = 0; r < rounds; r++) {
                            Map<SystemUnderTest, Double> round = new EnumMap<>(SystemUnderTest.class);
                            for (SystemUnderTest s : SystemUnderTest.values()) {
                                double perSecond = slice(fixtures.get(s), threads, sliceMs);
                                round.put(s, perSecond);
                                rates.computeIfAbsent(s, x -> new ArrayList<>()).add(perSecond);
                            }
                            vsTry.add(round.get(SystemUnderTest.SLUICE) / round.get(SystemUnderTest.TRY_ACQUIRE));
                            vsBucket.add(round.get(SystemUnderTest.SLUICE) / round.get(SystemUnderTest.BUCKET4J));
                            vsBatching.add(round.get(SystemUnderTest.SLUICE) / round.get(SystemUnderTest.BUCKET4J_BATCHING));
                            naiveVsTry.add(round.get(SystemUnderTest.TRY_ACQUIRE_AND_AVAILABLE) / round.get(SystemUnderTest.TRY_ACQUIRE));
                            prefetchVsTry.add(round.get(SystemUnderTest.SLUICE_PREFETCH) / round.get(SystemUnderTest.TRY_ACQUIRE));
                        }
                        StringBuilder row = new StringBuilder("| " + threads + " | " + keys + " | " + traffic + " |");
                        for (SystemUnderTest s : SystemUnderTest.values()) row.append(String.format(" %,.0f |", median(rates.get(s))));
                        row.append(String.format(" **%.2f×** (%.2f–%.2f) | **%.2f×** (%.2f–%.2f) | **%.2f×** (%.2f–%.2f) | %.2f× | %.2f× (%.2f–%.2f) |",
                                median(vsTry), Collections.min(vsTry), Collections.max(vsTry),
                                median(vsBucket), Collections.min(vsBucket), Collections.max(vsBucket),
                                median(vsBatching), Collections.min(vsBatching), Collections.max(vsBatching), median(naiveVsTry),
                                median(prefetchVsTry), Collections.min(prefetchVsTry), Collections.max(prefetchVsTry)));
                        System.out.println(row);
                    }
                } finally {
                    for (RateFixture f : fixtures.values()) f.close();
                }
            }
        }
        System.out.printf("%n(%d rounds of %d ms slices; ops/s are medians; ratios are medians of the per-round ratios, range in brackets)%n", rounds, sliceMs);
        System.exit(0);
    }

    /** Decisions per second of {@code threads} callers for {@code millis}. */
    static double slice(RateFixture f, int threads, long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        LongAdder done = new LongAdder();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                while (System.nanoTime() < end) {
                    f.decide(f.key());
                    done.increment();
                }
            });
            t.start();
            callers.add(t);
        }
        for (Thread t : callers) t.join();
        return done.sum() * 1000.0 / millis;
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }
}
