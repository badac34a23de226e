package io.sluice.benchmarks;

import io.sluice.Admission;
import io.sluice.ConfigException;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rate;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.spi.Algorithm;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.protocol.Time;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * How much of a hot key's limit is used under overload: one {@code global} rule ({@code 20000/1s} by default),
 * many callers asking far more than it admits, for some seconds. Reports the admitted share of the limit over the
 * steady windows ({@link SteadyWindows}: whole windows of the rule's period aligned on Redis's by a reading of its
 * clock before the callers start and narrowed by one after they stop, the first starting after two seconds of
 * settling, which start from a full limit, a token bucket's whole burst), counting the requests
 * sent and answered within them, and the most admitted in any rolling second of those as this process saw it
 * (admissions stamped when their answer arrived, so a rolling second can show a few more than the limit from answer
 * jitter, and a fixed window up to twice it across a window's edge; the limit itself is Redis's). For
 * {@code fixed-window} a last column cross-checks the share ({@link ResetWindows}): the most admissions placed in one
 * Redis window by their reset, the windows over the limit (an over-admission) and the admissions the share counted
 * outside its steady windows (an error of the measure).
 *
 * <p>{@code --servers 3} runs three engines (servers) in this process on the one Redis, the callers taken in turn by
 * each, after they have counted each other (a heartbeat, 5 s): the limit is then shared as across three machines.
 * {@code --prefetch} sets the rule's {@code prefetch} ({@code auto}, the default, {@code off} or a number); a comma-separated
 * list runs each, algorithm by algorithm, so that {@code --prefetch auto,off} compares the two in one run.
 * {@code --seconds} is rounded down to whole periods of the rate (at least one). A flag or a rule Sluice refuses
 * stops it before anything starts, with the reason and exit status 2.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.Overload [--callers 32] [--seconds 6]
 *     [--rate 20000/1s] [--timeout 10s] [--algorithm sliding-log,token-bucket,fixed-window,sliding-window]
 *     [--servers 1] [--prefetch auto,off]</pre>
 */
public final class Overload {
    private static final long SETTLE_NANOS = 2_000_000_000L;
    private static final long WARM_UP_NANOS = 1_000_000_000L;
    /** Long enough for every server to announce itself once more after the others started (a 5 s heartbeat). */
    private static final long COUNTED_MILLIS = 6_000;
    /**
     * Readings of Redis's clock; the one of the shortest round trip places Redis's windows on this process's clock (its
     * round trip narrows both edges of the steady windows, and a fixed window admits most at its first edge).
     */
    private static final int CLOCK_READINGS = 20;
    /** How far Redis's clock may gain or lose on this process's during a row before the run says so (1 ms). */
    private static final long CLOCK_NOTED_NANOS = 1_000_000L;
    /** Exit status of a refused flag or rule. */
    static final int BAD_INPUT = 2;
    /** Exit status of a run that failed. */
    static final int FAILED = 1;
    static final String USAGE = "usage: Overload [--callers 32] [--seconds 6] [--rate 20000/1s] [--timeout 10s]"
            + " [--algorithm sliding-log,...] [--servers 1] [--prefetch auto,off]";

    private Overload() {
    }

    /**
     * What to run.
     *
     * @param callers    threads asking, from 1 to {@link #MAX_CALLERS}
     * @param seconds    steady seconds, from 1 to {@link #MAX_SECONDS}, rounded down to whole periods (at least one)
     * @param rate       the rule's {@code rate}
     * @param timeout    {@code sluice.backend-timeout}: long by default, since on a loaded machine a 100 ms deadline
     *                   turns late answers into failure-policy admissions, which measures the machine, not the shield
     *                   (the last column counts them)
     * @param servers    engines sharing the Redis, from 1 to {@link #MAX_SERVERS}
     * @param algorithms the rule's {@code algorithm}, one row each
     * @param prefetches the rule's {@code prefetch}, one row each per algorithm
     */
    record Options(int callers, int seconds, String rate, String timeout, int servers, List<String> algorithms,
                   List<String> prefetches) {
        static final int MAX_CALLERS = 4096;
        static final int MAX_SECONDS = 86_400;
        static final int MAX_SERVERS = 64;

        /**
         * Parses {@code --name value} pairs.
         *
         * @throws IllegalArgumentException naming the flag, its value and what it expects
         */
        static Options parse(String... args) {
            Map<String, String> a = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i += 2) {
                if (!args[i].startsWith("--")) throw new IllegalArgumentException(args[i] + ": expected a flag such as --callers");
                if (i + 1 >= args.length) throw new IllegalArgumentException(args[i] + ": expected a value after it");
                if (a.put(args[i].substring(2), args[i + 1]) != null) throw new IllegalArgumentException(args[i] + ": given twice");
            }
            Options o = new Options(number(a, "callers", "32", MAX_CALLERS), number(a, "seconds", "6", MAX_SECONDS),
                    text(a, "rate", "20000/1s"), text(a, "timeout", "10s"), number(a, "servers", "1", MAX_SERVERS),
                    list(a, "algorithm", "sliding-log"), list(a, "prefetch", "auto"));
            if (!a.isEmpty()) {
                throw new IllegalArgumentException("--" + a.keySet().iterator().next()
                        + ": unknown flag, expected one of --callers, --seconds, --rate, --timeout, --servers, --algorithm, --prefetch");
            }
            return o;
        }

        /**
         * The rule of every row, parsed as an engine would, so that a value Sluice refuses stops the run before it
         * opens anything.
         *
         * @return the rule's rate (the same in every row)
         * @throws ConfigException naming every property Sluice refuses, its value and the expected form
         */
        Rate check() {
            Rate checked = null;
            for (String algorithm : algorithms) {
                for (String prefetch : prefetches) {
                    Rule rule = RuleParser.parse(properties("overload-check", algorithm, prefetch)).get("hot").orElseThrow();
                    checked = rule.rate().orElseThrow();
                }
            }
            return checked;
        }

        /** The engines' properties for one row, their keys under {@code prefix}. */
        Map<String, String> properties(String prefix, String algorithm, String prefetch) {
            return Map.of("sluice.key-prefix", prefix,
                    "sluice.backend-timeout", timeout,
                    "sluice.rules.hot.rate", rate,
                    "sluice.rules.hot.key", "global",
                    "sluice.rules.hot.prefetch", prefetch,
                    "sluice.rules.hot.algorithm", algorithm);
        }

        private static int number(Map<String, String> a, String flag, String fallback, int max) {
            String value = a.getOrDefault(flag, fallback);
            a.remove(flag);
            try {
                int n = Integer.parseInt(value.trim());
                if (n >= 1 && n <= max) return n;
            } catch (NumberFormatException e) {
                // reported below with the expected form
            }
            throw new IllegalArgumentException("--" + flag + " " + value + ": expected a whole number from 1 to " + max);
        }

        private static String text(Map<String, String> a, String flag, String fallback) {
            String value = a.getOrDefault(flag, fallback);
            a.remove(flag);
            return value;
        }

        private static List<String> list(Map<String, String> a, String flag, String fallback) {
            String value = text(a, flag, fallback);
            List<String> items = Arrays.stream(value.split(",", -1)).map(String::trim).toList();
            if (items.contains("")) throw new IllegalArgumentException("--" + flag + " " + value + ": expected a comma-separated list without empty items");
            return items;
        }
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(System.out, System.err, args);
        } catch (Exception | Error e) {
            e.printStackTrace();
            status = FAILED;
        } finally {
            BenchRedis.release();
        }
        // The embedded Redis stops in its shutdown hook.
        System.exit(status);
    }

    /**
     * Checks the flags and the rule, then prints one row per algorithm and prefetch.
     *
     * @return the exit status: 0, or {@link #BAD_INPUT} with the reason on {@code err}
     */
    static int run(PrintStream out, PrintStream err, String... args) throws InterruptedException {
        Options options;
        Rate rate;
        try {
            options = Options.parse(args);
            rate = options.check();
        } catch (IllegalArgumentException e) {
            err.println("Overload: " + e.getMessage());
            err.println(USAGE);
            return BAD_INPUT;
        } catch (ConfigException e) {
            err.println("Overload: --rate, --timeout, --algorithm and --prefetch make a rule Sluice refuses: " + e.getMessage());
            return BAD_INPUT;
        }
        out.println("| algorithm | servers | prefetch | callers | decisions/s | admitted/s (steady) | share of the limit | most in a rolling second | by the failure policy |"
                + " fixed window by reset: most in a window; windows over the limit; counted outside |");
        out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (String algorithm : options.algorithms()) {
            for (String prefetch : options.prefetches()) out.println(row(options, rate, algorithm, prefetch));
        }
        return 0;
    }

    /** One row of the table, on engines of this JVM's {@link BenchRedis#client()}, closed before it returns. */
    static String row(Options options, String algorithm, String prefetch) throws InterruptedException {
        return row(options, options.check(), algorithm, prefetch);
    }

    private static String row(Options options, Rate rate, String algorithm, String prefetch) throws InterruptedException {
        String prefix = "overload-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> properties = options.properties(prefix, algorithm, prefetch);
        List<Sluice> engines = new ArrayList<>();
        try {
            for (int i = 0; i < options.servers(); i++) {
                engines.add(Sluice.builder().properties(properties).backend(RedissonBackendProvider.using(BenchRedis.client())).build());
            }
            return measure(algorithm, engines, prefetch, options, rate);
        } finally {
            for (Sluice s : engines) s.close();
        }
    }

    /** Warms the engines up, then has the callers ask through them in turn and measures what was admitted. */
    private static String measure(String algorithm, List<Sluice> engines, String prefetch, Options options, Rate rate)
            throws InterruptedException {
        KeySource key = KeySource.fixed("*");
        // Warm up (connections, JIT) on another key, then measure on a fresh one.
        long warmEnd = System.nanoTime() + WARM_UP_NANOS;
        while (System.nanoTime() < warmEnd) {
            for (Sluice s : engines) s.admit(hot(s), KeySource.fixed("warm-up")).toCompletableFuture().join();
        }
        if (engines.size() > 1) Thread.sleep(COUNTED_MILLIS);
        long periodNanos = rate.period().toNanos();
        int windows = (int) Math.max(1, Math.min(Integer.MAX_VALUE, options.seconds() * 1_000_000_000L / periodNanos));
        SteadyWindows.RedisTime redis = redisTime(BenchRedis.client());
        long start = System.nanoTime();
        SteadyWindows steady = SteadyWindows.after(start + SETTLE_NANOS, redis, periodNanos, windows);
        long end = steady.toNanos();
        LongAdder decisions = new LongAdder();
        LongAdder byPolicy = new LongAdder();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Admitted> admitted = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < options.callers(); t++) {
            Admitted mine = new Admitted(new ResetWindows(redis, periodNanos));
            Sluice sluice = engines.get(t % engines.size());
            List<Rule> rules = hot(sluice);
            admitted.add(mine);
            Thread th = new Thread(() -> {
                try {
                    for (long sent = System.nanoTime(); sent < end; sent = System.nanoTime()) {
                        Admission adm = sluice.admit(rules, key).toCompletableFuture().join();
                        long answered = System.nanoTime();
                        decisions.increment();
                        if (adm.decisions().get(0).outcome() != Decision.Outcome.DECIDED) byPolicy.increment();
                        if (!adm.allowed()) continue;
                        long resetMillis = adm.decisions().get(0).reset().toMillis();
                        mine.placed.add(sent, answered, resetMillis);
                        if (steady.holds(sent, answered)) mine.add(sent, answered, resetMillis);
                    }
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }, "overload-caller-" + t);
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) th.join();
        if (!failures.isEmpty()) throw new IllegalStateException(failures.size() + " callers failed", failures.peek());
        SteadyWindows.RedisTime after = redisTime(BenchRedis.client());
        long gained = SteadyWindows.gained(redis, after);
        if (Math.abs(gained) > CLOCK_NOTED_NANOS) {
            System.err.printf("Overload: Redis's clock %s %.1f ms against this process's during the %s %s row; its steady"
                    + " windows are narrowed to match%n", gained > 0 ? "gained" : "lost", Math.abs(gained) / 1e6, algorithm, prefetch);
        }
        SteadyWindows narrowed = steady.narrowedBy(after);
        ResetWindows countedPlaced = new ResetWindows(redis, periodNanos);
        long[] answers = Admitted.within(admitted, narrowed, countedPlaced);
        double perSecond = narrowed.perSecond(answers.length);
        return String.format("| %s | %d | %s | %d | %,.0f | %,.0f | **%.1f %%** | %,d | %d | %s |", algorithm, engines.size(), prefetch,
                options.callers(), decisions.sum() * 1e9 / (end - start), perSecond, 100 * narrowed.shareOf(rate.permits(), answers.length),
                SteadyWindows.mostInASecond(answers), byPolicy.sum(), byReset(algorithm, admitted, countedPlaced, narrowed, rate.permits()));
    }

    /**
     * The fixed window's cross-check of the share ({@link ResetWindows}): the most admissions placed in one Redis window
     * by their reset, how many windows hold more than the limit, and how many of the counted admissions fall outside
     * the steady windows; a dash for the other algorithms, whose reset is not their window's end.
     */
    private static String byReset(String algorithm, List<Admitted> admitted, ResetWindows counted, SteadyWindows steady, long limit) {
        if (!algorithm.equals(Algorithm.FIXED_WINDOW.id())) return "–";
        ResetWindows placed = ResetWindows.of(admitted.stream().map(a -> a.placed).toList());
        String unplaced = placed.unplaced() == 0 ? "" : String.format(" (%,d unplaced)", placed.unplaced());
        return String.format("%,d; %d over; %,d outside%s", placed.most(), placed.over(limit),
                counted.outside(steady.firstWindow(), steady.windows()), unplaced);
    }

    /** Redis's {@code TIME}, the reading of the shortest round trip of a few. */
    private static SteadyWindows.RedisTime redisTime(RedissonClient client) {
        SteadyWindows.RedisTime best = null;
        for (int i = 0; i < CLOCK_READINGS; i++) {
            long sent = System.nanoTime();
            Time time = client.getRedisNodes(RedisNodes.SINGLE).getInstance().time();
            long answered = System.nanoTime();
            SteadyWindows.RedisTime reading = new SteadyWindows.RedisTime(sent, time.getSeconds() * 1_000_000L + time.getMicroseconds(), answered);
            if (best == null || answered - sent < best.answeredNanos() - best.sentNanos()) best = reading;
        }
        return best;
    }

    private static List<Rule> hot(Sluice sluice) {
        return List.of(sluice.rules().get("hot").orElseThrow());
    }

    /**
     * One caller's admissions within the steady windows as the first reading placed them: when each was sent and
     * answered (nanoTime) and its reset (ms), three numbers each; written by that caller only.
     */
    private static final class Admitted {
        private static final int NUMBERS = 3;
        private long[] admissions = new long[NUMBERS * 1024];
        private int size;
        /** Every admission of this caller, placed in its window by its reset. */
        final ResetWindows placed;

        Admitted(ResetWindows placed) {
            this.placed = placed;
        }

        void add(long sentNanos, long answeredNanos, long resetMillis) {
            if (size == admissions.length) admissions = Arrays.copyOf(admissions, size * 2);
            admissions[size++] = sentNanos;
            admissions[size++] = answeredNanos;
            admissions[size++] = resetMillis;
        }

        /** When the admissions {@code steady} holds were answered; each placed in {@code placed} too. */
        static long[] within(List<Admitted> callers, SteadyWindows steady, ResetWindows placed) {
            long[] answered = new long[callers.stream().mapToInt(c -> c.size / NUMBERS).sum()];
            int n = 0;
            for (Admitted c : callers) {
                for (int i = 0; i < c.size; i += NUMBERS) {
                    if (!steady.holds(c.admissions[i], c.admissions[i + 1])) continue;
                    answered[n++] = c.admissions[i + 1];
                    placed.add(c.admissions[i], c.admissions[i + 1], c.admissions[i + 2]);
                }
            }
            return Arrays.copyOf(answered, n);
        }
    }
}
