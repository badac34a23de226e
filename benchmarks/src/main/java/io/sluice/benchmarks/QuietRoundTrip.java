package io.sluice.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rule;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.TransportMode;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToDoubleFunction;

/**
 * The quiet key's round trip (issue 26): allowed decisions over many keys picked at random, so that every decision
 * is one Redis call, with Netty's transports side by side in one JVM. Each system (Sluice, bare
 * {@link RRateLimiter#tryAcquire()}) runs on one Redisson client per transport; a round is one slice of every
 * variant, in an order reversed every other round, and each ratio compares the slices of one round. Besides
 * decisions per second (which a busy machine swings), each slice measures this JVM's CPU time per decision (the
 * clients' idle event loops cost next to nothing, so a slice's CPU is its variant's), steadier under load.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.QuietRoundTrip [--rounds 10] [--slice-ms 1000]
 *     [--threads 1,16] [--keys 10000] [--transports nio,epoll] [--systems sluice,try-acquire]</pre>
 *
 * With one transport it measures one JVM's setting (a system property such as Netty's leak detector, or a build
 * of Sluice): {@code benchmarks/quiet/ab.sh} runs two such JVMs in turn and compares them round by round; each
 * JVM then prints {@code RATE <system> <threads> <decisions per second>} and {@code CPU <system> <threads> <µs per
 * decision>} lines, the medians of its slices.
 */
public final class QuietRoundTrip {
    /** Far above what any slice asks for, over a period every key outlives between its uses: nothing is rejected. */
    private static final long PERMITS = 1_000_000_000L;
    private static final Duration PERIOD = Duration.ofSeconds(10);
    private static final OperatingSystemMXBean CPU = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** One system on one client. */
    interface Variant extends AutoCloseable {
        String name();

        boolean decide(int key);

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        int rounds = Integer.parseInt(a.getOrDefault("rounds", "10"));
        long sliceMs = Long.parseLong(a.getOrDefault("slice-ms", "1000"));
        int keys = Integer.parseInt(a.getOrDefault("keys", "10000"));
        List<String> transports = List.of(a.getOrDefault("transports", "nio,epoll").split(","));
        List<String> systems = List.of(a.getOrDefault("systems", "sluice,try-acquire").split(","));
        List<RedissonClient> clients = new ArrayList<>();
        List<Variant> variants = open(transports, systems, keys, clients);
        try {
            for (String th : a.getOrDefault("threads", "1,16").split(",")) {
                int threads = Integer.parseInt(th);
                Map<String, List<Slice>> slices = run(variants, threads, keys, rounds, sliceMs);
                if (transports.size() == 1) {
                    for (String s : systems) {
                        List<Slice> mine = slices.get(s + "-" + transports.get(0));
                        System.out.printf(Locale.ROOT, "RATE %s %d %.1f%n", s, threads, median(mine.stream().map(Slice::perSecond).toList()));
                        System.out.printf(Locale.ROOT, "CPU %s %d %.2f%n", s, threads, median(mine.stream().map(Slice::cpuMicros).toList()));
                    }
                } else {
                    System.out.printf("%n%d threads, %d rounds of %d ms slices (medians; ratios: medians of per-round ratios, range in brackets)%n",
                            threads, rounds, sliceMs);
                    print("decisions/s", slices, Slice::perSecond, systems, transports);
                    print("JVM CPU µs per decision", slices, Slice::cpuMicros, systems, transports);
                }
            }
        } finally {
            for (Variant v : variants) v.close();
            for (RedissonClient c : clients) c.shutdown();
        }
        System.exit(0);
    }

    /** Every system on a client of each transport, in that order; the clients are added to {@code clients}. */
    static List<Variant> open(List<String> transports, List<String> systems, int keys, List<RedissonClient> clients) {
        List<Variant> variants = new ArrayList<>();
        for (String t : transports) {
            RedissonClient client = client(TransportMode.valueOf(t.toUpperCase(Locale.ROOT)));
            clients.add(client);
            for (String s : systems) variants.add(s.equals("sluice") ? sluice(client, t, keys) : tryAcquire(client, t, keys));
        }
        return variants;
    }

    /** What one slice measured. */
    record Slice(double perSecond, double cpuMicros) {
    }

    /** Every variant's slice in each round, after a warm-up slice each. */
    static Map<String, List<Slice>> run(List<Variant> variants, int threads, int keys, int rounds, long sliceMs)
            throws InterruptedException {
        for (Variant v : variants) slice(v, threads, keys, sliceMs / 2);
        Map<String, List<Slice>> rates = new LinkedHashMap<>();
        for (int r = 0; r < rounds; r++) {
            List<Variant> order = new ArrayList<>(variants);
            if (r % 2 == 1) Collections.reverse(order);
            for (Variant v : order) rates.computeIfAbsent(v.name(), x -> new ArrayList<>()).add(slice(v, threads, keys, sliceMs));
        }
        return rates;
    }

    private static void print(String measure, Map<String, List<Slice>> slices, ToDoubleFunction<Slice> value,
                              List<String> systems, List<String> transports) {
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        slices.forEach((name, list) -> rates.put(name, list.stream().map(value::applyAsDouble).toList()));
        String base = transports.get(0);
        System.out.println("| " + measure + " | " + String.join(" | ", transports) + " | " + transports.stream().skip(1)
                .map(t -> t + " / " + base).reduce((x, y) -> x + " | " + y).orElse("") + " |");
        System.out.println("|---".repeat(1 + 2 * transports.size() - 1) + "|");
        for (String s : systems) {
            StringBuilder row = new StringBuilder("| " + s + " |");
            for (String t : transports) row.append(String.format(Locale.ROOT, " %,.0f |", median(rates.get(s + "-" + t))));
            List<Double> b = rates.get(s + "-" + base);
            for (String t : transports.subList(1, transports.size())) {
                List<Double> v = rates.get(s + "-" + t);
                List<Double> ratio = new ArrayList<>();
                for (int r = 0; r < b.size(); r++) ratio.add(v.get(r) / b.get(r));
                row.append(String.format(Locale.ROOT, " **%.3f×** (%.3f–%.3f) |", median(ratio), Collections.min(ratio), Collections.max(ratio)));
            }
            System.out.println(row);
        }
    }

    /** A client as {@link BenchRedis#client()} makes it, on the given transport. */
    static RedissonClient client(TransportMode transport) {
        Config config = new Config();
        config.setTransportMode(transport);
        config.useSingleServer().setAddress(BenchRedis.address())
                .setConnectionPoolSize(64).setConnectionMinimumIdleSize(16)
                .setTimeout(10_000).setRetryAttempts(0);
        return Redisson.create(config);
    }

    private static Variant sluice(RedissonClient client, String transport, int keys) {
        String prefix = "quiet-" + UUID.randomUUID().toString().substring(0, 8);
        Sluice sluice = Sluice.builder().backend(RedissonBackendProvider.using(client)).properties(Map.of(
                "sluice.key-prefix", prefix,
                "sluice.backend-timeout", "10s",
                "sluice.rules.quiet.rate", PERMITS + "/" + PERIOD.toSeconds() + "s",
                "sluice.rules.quiet.key", "user",
                "sluice.rules.quiet.algorithm", System.getProperty("sluice.bench.algorithm", "sliding-log"))).build();
        List<Rule> rules = List.of(sluice.rules().get("quiet").orElseThrow());
        KeySource[] users = new KeySource[keys];
        for (int i = 0; i < keys; i++) users[i] = KeySource.fixed("user-" + i);
        return new Variant() {
            public String name() {
                return "sluice-" + transport;
            }

            public boolean decide(int key) {
                Admission admission = sluice.admit(rules, users[key]).toCompletableFuture().join();
                return admission.allowed();
            }

            public void close() {
                var stats = sluice.stats();
                // A decision made without Redis would flatter the variant: say so.
                if (stats.failedOpen() + stats.failedClosed() > 0) System.err.println(name() + ": decided without Redis: " + stats);
                sluice.close();
                client.getKeys().deleteByPattern("{" + prefix + "*");
                client.getKeys().deleteByPattern(prefix + "*");
            }
        };
    }

    private static Variant tryAcquire(RedissonClient client, String transport, int keys) {
        String prefix = "quiet-rrl-" + UUID.randomUUID().toString().substring(0, 8);
        RRateLimiter[] limiters = new RRateLimiter[keys];
        for (int i = 0; i < keys; i++) {
            limiters[i] = client.getRateLimiter(prefix + ":" + i);
            limiters[i].trySetRate(RateType.OVERALL, PERMITS, PERIOD);
        }
        return new Variant() {
            public String name() {
                return "try-acquire-" + transport;
            }

            public boolean decide(int key) {
                return limiters[key].tryAcquire();
            }

            public void close() {
                client.getKeys().deleteByPattern(prefix + "*");
            }
        };
    }

    /** {@code threads} callers for {@code millis}; a rejection would end the run. */
    static Slice slice(Variant v, int threads, int keys, long millis) throws InterruptedException {
        long cpuBefore = CPU.getProcessCpuTime();
        long end = System.nanoTime() + millis * 1_000_000;
        long[] done = new long[threads];
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int caller = i;
            Thread t = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long n = 0;
                while (System.nanoTime() < end) {
                    if (!v.decide(random.nextInt(keys))) throw new IllegalStateException(v.name() + " rejected a decision");
                    n++;
                }
                done[caller] = n;
            });
            t.start();
            callers.add(t);
        }
        long sum = 0;
        for (int i = 0; i < threads; i++) {
            callers.get(i).join();
            sum += done[i];
        }
        return new Slice(sum * 1000.0 / millis, (CPU.getProcessCpuTime() - cpuBefore) / 1000.0 / Math.max(1, sum));
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }
}
