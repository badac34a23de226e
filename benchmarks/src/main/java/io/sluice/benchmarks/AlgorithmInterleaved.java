package io.sluice.benchmarks;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackend;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateRequest;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * Each rate algorithm's backend call ({@link RedissonBackend#tryConsume}, one script, one round trip, answering
 * every header) beside bare Redisson {@link RRateLimiter#tryAcquire()} (a boolean only), on one hot key, on the
 * allowed path (a limit never reached) and the rejected path (a limit exhausted before measuring), at several
 * caller counts. Systems run interleaved in short slices, round after round, so each ratio compares slices
 * seconds apart on a noisy machine; the ratios are medians of per-round ratios. {@code --level engine} measures
 * {@code Sluice.admit} instead (one rule per algorithm, the same hot key): what a filter's request gets, with
 * concurrent decisions for the key coalesced and the attack shield answering what Redis just rejected.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.AlgorithmInterleaved [--rounds 5]
 *     [--slice-ms 600] [--threads 1,8,64] [--traffic allowed,rejected] [--level backend|engine]</pre>
 */
public final class AlgorithmInterleaved {
    private static final String BASELINE = "tryAcquire";
    /** Allowed path: never reached, as in {@link RateFixture}; rejected path: one an hour, taken before measuring. */
    private static final long ALLOWED_PERMITS = 1_000_000_000L;
    private static final Duration ALLOWED_PERIOD = Duration.ofSeconds(10);
    private static final long ALLOWED_LEAKY_QUEUE = 1_000_000;
    /** The target: these algorithms at least as fast as bare tryAcquire, allowed and rejected, at every caller count. */
    private static final List<Algorithm> TARGETED = List.of(Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW);
    private static final double TARGET = 1.0;

    private AlgorithmInterleaved() {
    }

    /** One decision of one system, blocking as a filter's caller does. */
    private interface Call {
        boolean decide();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        int rounds = Integer.parseInt(a.getOrDefault("rounds", "5"));
        long sliceMs = Long.parseLong(a.getOrDefault("slice-ms", "600"));
        RedissonClient redisson = BenchRedis.client();
        LimiterBackend backend = new RedissonBackend(redisson, false, Clock.systemUTC(), Duration.ofSeconds(10));
        boolean engine = a.getOrDefault("level", "backend").equals("engine");
        List<Sluice> engines = new ArrayList<>();
        String prefix = "bench-alg-" + UUID.randomUUID().toString().substring(0, 8);
        StringBuilder header = new StringBuilder("| traffic | callers | " + BASELINE + " ops/s |");
        StringBuilder rule = new StringBuilder("|---|---|---|");
        for (Algorithm alg : Algorithm.values()) {
            header.append(' ').append(alg.id()).append(" |");
            rule.append("---|");
        }
        List<String> missed = new ArrayList<>();
        System.out.println(header);
        System.out.println(rule);
        try {
            for (String traffic : a.getOrDefault("traffic", "allowed,rejected").split(",")) {
                boolean rejected = traffic.equals("rejected");
                Map<String, Call> systems = engine
                        ? engineSystems(redisson, prefix + "-" + traffic, rejected, engines)
                        : systems(redisson, backend, prefix + ":" + traffic, rejected);
                for (String t : a.getOrDefault("threads", "1,8,64").split(",")) {
                    int threads = Integer.parseInt(t);
                    for (Call c : systems.values()) slice(c, threads, sliceMs / 2); // warm-up
                    Map<String, List<Double>> ratios = new LinkedHashMap<>();
                    List<Double> baseline = new ArrayList<>();
                    for (int r = 0; r < rounds; r++) {
                        Map<String, Double> round = new HashMap<>();
                        for (Map.Entry<String, Call> s : systems.entrySet()) round.put(s.getKey(), slice(s.getValue(), threads, sliceMs));
                        baseline.add(round.get(BASELINE));
                        for (Algorithm alg : Algorithm.values()) {
                            ratios.computeIfAbsent(alg.id(), k -> new ArrayList<>()).add(round.get(alg.id()) / round.get(BASELINE));
                        }
                    }
                    StringBuilder row = new StringBuilder(String.format("| %s | %d | %,.0f |", traffic, threads, Interleaved.median(baseline)));
                    for (Algorithm alg : Algorithm.values()) {
                        List<Double> v = ratios.get(alg.id());
                        double median = Interleaved.median(v);
                        if (TARGETED.contains(alg) && median < TARGET) missed.add(alg.id() + " " + traffic + " at " + threads);
                        row.append(String.format(" %.2f× (%.2f–%.2f) |", median, Collections.min(v), Collections.max(v)));
                    }
                    System.out.println(row);
                }
            }
        } finally {
            redisson.getKeys().deleteByPattern(prefix + "*");
            redisson.getKeys().deleteByPattern("{" + prefix + "*");
            backend.close();
            engines.forEach(Sluice::close);
            BenchRedis.release();
        }
        System.out.printf("%n(%s level; %d rounds of %d ms slices, one hot key; ratios to %s: medians of per-round ratios, range in brackets)%n",
                engine ? "engine" : "backend", rounds, sliceMs, BASELINE);
        System.out.println("Target (" + TARGETED + " >= " + TARGET + "x on every row): "
                + (missed.isEmpty() ? "met" : "missed by " + missed));
        System.exit(0);
    }

    private static Map<String, Call> systems(RedissonClient redisson, LimiterBackend backend, String prefix, boolean rejected) {
        long permits = rejected ? 1 : ALLOWED_PERMITS;
        Duration period = rejected ? Duration.ofHours(1) : ALLOWED_PERIOD;
        Map<String, Call> systems = new LinkedHashMap<>();
        RRateLimiter limiter = redisson.getRateLimiter(prefix + ":rrl");
        limiter.trySetRate(RateType.OVERALL, permits, period);
        systems.put(BASELINE, limiter::tryAcquire);
        for (Algorithm alg : Algorithm.values()) {
            String key = alg == Algorithm.SLIDING_LOG ? prefix + ":" + alg.id() : prefix + ":{" + alg.id() + "}";
            RateRequest r = RateRequest.of(alg, key, permits, period);
            if (alg == Algorithm.LEAKY_BUCKET && !rejected) r = r.withQueue(ALLOWED_LEAKY_QUEUE);
            RateRequest request = r;
            systems.put(alg.id(), () -> backend.tryConsume(request).toCompletableFuture().join().allowed());
        }
        if (rejected) {
            for (Call c : systems.values()) c.decide(); // exhaust every limit once
        }
        return systems;
    }

    /** The same decisions through the engine: one rule per algorithm, every rule on one hot key. */
    private static Map<String, Call> engineSystems(RedissonClient redisson, String prefix, boolean rejected, List<Sluice> engines) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.key-prefix", prefix);
        // A deadline the benchmark never reaches: it measures decisions, not the failure policy.
        p.put("sluice.backend-timeout", "10s");
        for (Algorithm alg : Algorithm.values()) {
            String rule = "sluice.rules." + alg.id() + ".";
            p.put(rule + "rate", rejected ? "1/1h" : ALLOWED_PERMITS + "/" + ALLOWED_PERIOD.toSeconds() + "s");
            p.put(rule + "algorithm", alg.id());
            p.put(rule + "key", "header:X-Bench");
            if (alg == Algorithm.LEAKY_BUCKET && !rejected) p.put(rule + "queue", Long.toString(ALLOWED_LEAKY_QUEUE));
        }
        Sluice sluice = Sluice.builder().backend(RedissonBackendProvider.using(redisson)).properties(p).build();
        engines.add(sluice);
        Map<String, Call> systems = new LinkedHashMap<>();
        RRateLimiter limiter = redisson.getRateLimiter(prefix + ":rrl");
        limiter.trySetRate(RateType.OVERALL, rejected ? 1 : ALLOWED_PERMITS, rejected ? Duration.ofHours(1) : ALLOWED_PERIOD);
        systems.put(BASELINE, limiter::tryAcquire);
        KeySource hot = KeySource.fixed("hot");
        for (Algorithm alg : Algorithm.values()) {
            List<Rule> rules = List.of(sluice.rules().get(alg.id()).orElseThrow());
            systems.put(alg.id(), () -> {
                Admission admission = sluice.admit(rules, hot).toCompletableFuture().join();
                admission.close();
                return admission.allowed();
            });
        }
        if (rejected) {
            for (Call c : systems.values()) c.decide(); // exhaust every limit once
        }
        return systems;
    }

    private static double slice(Call c, int threads, long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        LongAdder done = new LongAdder();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                while (System.nanoTime() < end) {
                    c.decide();
                    done.increment();
                }
            });
            t.start();
            callers.add(t);
        }
        for (Thread t : callers) t.join();
        return done.sum() * 1000.0 / millis;
    }
}
