package io.sluice.benchmarks.wrk;

import io.sluice.benchmarks.BenchRedis;
import io.sluice.benchmarks.Hello;
import io.sluice.benchmarks.NaiveRateLimitFilter;
import io.sluice.benchmarks.RedisCounters;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The HTTP benchmark as a user would run it: a stock Tomcat 11 distribution and an embedded Jetty 12, each in
 * a JVM of its own, serving six web applications ({@link Scenario}: no filter, the hand-written
 * {@code RRateLimiter} filter, Sluice sliding-log and token-bucket, each as by default and with {@code prefetch}),
 * driven by Debian's {@code wrk} on 127.0.0.1 against a Redis of its own. For every container, connection count and
 * number of clients the six are measured one after the other in each round, so the ratios compare runs minutes apart at most; medians
 * of the rounds and of the per-round ratios are printed as markdown, with the container's and Redis's CPU
 * time per request. Then each scenario is run once more under async-profiler: a flame graph per run and where
 * the CPU of one request goes.
 *
 * <p>{@code benchmarks/wrk/run.sh} builds what it needs and runs it; see BENCHMARKS.md. Options (defaults):
 * {@code --containers tomcat,jetty --scenarios} {@link Scenario#ALL} {@code
 * --connections 16,64 --clients 16,10000 --rounds 3 --seconds 2 --warmup-seconds 5 --threads 2 --profile true
 * --work benchmarks/target/wrk}, and {@code --backend-timeout} (Sluice's {@code sluice.backend-timeout}; default:
 * Sluice's own, as a user gets it) and {@code --server-jvm-options} (added to both containers' JVMs, space-separated,
 * such as {@code "-Dio.netty.leakDetection.level=disabled"}). Everything it starts (containers, wrk, Redis) stops before it exits.
 */
public final class WrkBenchmark {
    /** One measured run of wrk against one scenario. */
    record Cell(String container, int round, int connections, int clients, Scenario scenario, Wrk.Result wrk,
                double serverCpuMicros, double redisCpuMicros, double scriptsPerRequest, double microsPerScript) {
    }

    /** The profiled run of a scenario and where its CPU went. */
    record Profile(String container, Scenario scenario, int connections, int clients, Cell cell,
                   Map<Profiler.Part, Double> shares, Map<String, Double> hotSpots, Path flameGraph) {
    }

    record Options(List<String> containers, List<Scenario> scenarios, List<Integer> connections, List<Integer> clients,
                   int rounds, int seconds, int warmupSeconds, int threads, boolean profile, Path work,
                   String backendTimeout, List<String> serverJvmOptions) {
        static Options parse(String[] args) {
            Map<String, String> a = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].startsWith("--") || i + 1 >= args.length) throw new IllegalArgumentException("expected --option value, got " + args[i]);
                a.put(args[i].substring(2), args[++i]);
            }
            Options o = new Options(list(a.remove("containers"), "tomcat,jetty"),
                    list(a.remove("scenarios"), Scenario.ALL).stream().map(Scenario::parse).toList(),
                    ints(a.remove("connections"), "16,64"), ints(a.remove("clients"), "16,10000"),
                    Integer.parseInt(a.getOrDefault("rounds", "3")), Integer.parseInt(a.getOrDefault("seconds", "2")),
                    Integer.parseInt(a.getOrDefault("warmup-seconds", "5")), Integer.parseInt(a.getOrDefault("threads", "2")),
                    Boolean.parseBoolean(a.getOrDefault("profile", "true")), Path.of(a.getOrDefault("work", "benchmarks/target/wrk")),
                    a.get("backend-timeout"), Arrays.stream(a.getOrDefault("server-jvm-options", "").trim().split("\\s+"))
                            .filter(x -> !x.isEmpty()).toList());
            for (String k : List.of("rounds", "seconds", "warmup-seconds", "threads", "profile", "work", "backend-timeout",
                    "server-jvm-options")) a.remove(k);
            if (!a.isEmpty()) throw new IllegalArgumentException("unknown options " + a.keySet());
            for (String c : o.containers) if (!c.equals("tomcat") && !c.equals("jetty")) throw new IllegalArgumentException("container = " + c + ": expected tomcat or jetty");
            if (!o.scenarios.contains(Scenario.NONE) || !o.scenarios.contains(Scenario.HAND_WRITTEN)) {
                throw new IllegalArgumentException("scenarios must include none and hand-written: the ratios are against them");
            }
            return o;
        }

        private static List<String> list(String value, String fallback) {
            return Arrays.stream((value == null ? fallback : value).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        }

        private static List<Integer> ints(String value, String fallback) {
            return list(value, fallback).stream().map(Integer::parseInt).toList();
        }

        /** Seconds the measurement takes, start-up aside. */
        long plannedSeconds() {
            long perContainer = (long) scenarios.size() * (warmupSeconds
                    + (long) rounds * connections.size() * clients.size() * seconds + (profile ? seconds : 0));
            return perContainer * containers.size();
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        if (!Wrk.installed()) {
            System.out.println("SKIPPED: wrk is not installed (Debian: apt-get install -y wrk; benchmarks/wrk/run.sh does it as root)");
            System.exit(0);
        }
        Path work = options.work().toAbsolutePath();
        Path out = work.resolve("results-" + Instant.now().truncatedTo(ChronoUnit.SECONDS).toString().replace(":", ""));
        Files.createDirectories(out);
        Path profilerLib = options.profile() ? Profiler.find(work.resolve("async-profiler")) : null;
        if (options.profile() && profilerLib == null) System.out.println("no async-profiler under " + work + "/async-profiler: not profiling");
        System.out.printf("wrk benchmark: %s, about %d s of load plus start-up; results in %s%n", options, options.plannedSeconds(), out);

        String environment = environment("before");
        List<Cell> cells = new ArrayList<>();
        List<Profile> profiles = new ArrayList<>();
        Map<String, Long> failurePolicy = new LinkedHashMap<>();
        String redis = BenchRedis.address();
        RedissonClient client = BenchRedis.client();
        String redisVersion = redisVersion(client) + " at " + redis;
        Wrk wrk = new Wrk(out, options.threads());
        try {
            for (String container : options.containers()) {
                try (ServerProcess server = start(container, options, work, redis)) {
                    System.out.printf("%s started (pid %d), log %s%n", container, server.pid(), server.log());
                    measure(server, options, wrk, client, profilerLib, out, cells, profiles);
                    failurePolicy.put(container, server.failurePolicyDecisions());
                }
            }
        } finally {
            BenchRedis.release();
        }
        environment += environment("after");
        String summary = summary(options, cells, profiles, failurePolicy, environment, redisVersion);
        Files.writeString(out.resolve("summary.md"), summary);
        Files.writeString(out.resolve("rounds.csv"), csv(cells));
        System.out.println();
        System.out.println(summary);
        System.exit(0);
    }

    private static ServerProcess start(String container, Options options, Path work, String redis) throws Exception {
        List<String> paths = options.scenarios().stream().map(s -> s.contextPath() + "/hello").toList();
        ServerProcess server;
        if (container.equals("tomcat")) {
            Path home = tomcatHome(work);
            Path base = fresh(work.resolve("tomcat-base"));
            copyTree(home.resolve("conf"), base.resolve("conf"));
            for (String dir : List.of("logs", "temp", "work", "webapps")) Files.createDirectories(base.resolve(dir));
            for (Scenario s : options.scenarios()) deploy(s, base.resolve("webapps").resolve(s.id()), work.resolve("lib"), redis, options.backendTimeout());
            server = ServerProcess.tomcat(home, base, ServerProcess.freePort(), options.serverJvmOptions());
        } else {
            Path jar = Path.of(WrkBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            server = ServerProcess.jetty(jar, fresh(work.resolve("jetty-base")), ServerProcess.freePort(), redis, options.backendTimeout(),
                    options.serverJvmOptions());
        }
        try {
            server.awaitReady(paths);
            return server;
        } catch (RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
    }

    private static void measure(ServerProcess server, Options options, Wrk wrk, RedissonClient client, Path profilerLib,
                                Path out, List<Cell> cells, List<Profile> profiles) {
        int mostConnections = options.connections().stream().max(Integer::compare).orElseThrow();
        int mostClients = options.clients().stream().max(Integer::compare).orElseThrow();
        for (Scenario s : options.scenarios()) {
            Wrk.Result r = wrk.run(server.url(s.contextPath() + "/hello"), mostConnections, mostClients, options.warmupSeconds());
            System.out.printf("%s warm-up %-20s %,9.0f req/s%n", server.name(), s.id(), r.perSecond());
        }
        for (int round = 1; round <= options.rounds(); round++) {
            for (int connections : options.connections()) {
                for (int clients : options.clients()) {
                    for (Scenario s : options.scenarios()) {
                        Cell cell = run(server, wrk, client, round, connections, clients, s, options.seconds());
                        cells.add(cell);
                        System.out.println(describe(cell));
                    }
                }
            }
        }
        if (profilerLib == null) return;
        Profiler profiler = new Profiler(profilerLib);
        int connections = options.connections().get(0);
        int clients = options.clients().get(0);
        for (Scenario s : options.scenarios()) {
            String name = server.name() + "-" + s.id() + "-c" + connections + "-k" + clients;
            Path collapsed = out.resolve(name + ".collapsed");
            Path html = out.resolve(name + ".html");
            profiler.start(server.pid());
            Cell cell = run(server, wrk, client, 0, connections, clients, s, options.seconds());
            profiler.stop(server.pid(), collapsed, html, name);
            Profile p = new Profile(server.name(), s, connections, clients, cell, Profiler.breakdown(collapsed),
                    Profiler.hotSpots(collapsed), html);
            profiles.add(p);
            System.out.println("profiled " + describe(cell) + " -> " + html);
        }
    }

    private static Cell run(ServerProcess server, Wrk wrk, RedissonClient client, int round, int connections, int clients,
                            Scenario s, int seconds) {
        RedisCounters before = RedisCounters.read(client);
        long cpuBefore = server.cpuNanos();
        Wrk.Result r = wrk.run(server.url(s.contextPath() + "/hello"), connections, clients, seconds);
        long cpu = server.cpuNanos() - cpuBefore;
        RedisCounters after = RedisCounters.read(client);
        double n = Math.max(1, r.requests());
        long scripts = after.scriptCalls() - before.scriptCalls();
        return new Cell(server.name(), round, connections, clients, s, r, cpu / 1e3 / n,
                (after.cpuMicros() - before.cpuMicros()) / n, scripts / n,
                scripts == 0 ? 0 : (after.scriptMicros() - before.scriptMicros()) / (double) scripts);
    }

    private static String describe(Cell c) {
        return String.format("%s round %d, %2d connections, %5d clients, %-20s %,9.0f req/s, p99 %,7.2f ms, "
                        + "container %5.0f µs/req, Redis %5.1f µs/req, %.2f scripts/req at %.1f µs, non-2xx %d, errors %d",
                c.container(), c.round(), c.connections(), c.clients(), c.scenario().id(), c.wrk().perSecond(),
                c.wrk().p99Micros() / 1e3, c.serverCpuMicros(), c.redisCpuMicros(), c.scriptsPerRequest(),
                c.microsPerScript(), c.wrk().non2xx(), c.wrk().socketErrors());
    }

    // ---- the web applications

    /** An exploded WAR: {@code web.xml}, the two benchmark classes, Sluice's rules, and the filters' jars. */
    private static void deploy(Scenario s, Path app, Path lib, String redis, String backendTimeout) throws IOException {
        Path webInf = Files.createDirectories(app.resolve("WEB-INF"));
        Files.writeString(webInf.resolve("web.xml"), s.webXml(redis, backendTimeout));
        for (Class<?> c : List.of(Hello.class, NaiveRateLimitFilter.class)) {
            String resource = c.getName().replace('.', '/') + ".class";
            Path target = webInf.resolve("classes").resolve(resource);
            Files.createDirectories(target.getParent());
            try (InputStream in = WrkBenchmark.class.getClassLoader().getResourceAsStream(resource)) {
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        if (s.sluice()) Files.writeString(webInf.resolve("classes/sluice.properties"), s.sluiceProperties(redis, backendTimeout));
        if (s == Scenario.NONE) return;
        if (!Files.isDirectory(lib)) throw new IllegalStateException(lib + " is missing: build with -Pwrk (benchmarks/wrk/run.sh does)");
        Path target = Files.createDirectories(webInf.resolve("lib"));
        try (Stream<Path> jars = Files.list(lib)) {
            for (Path jar : (Iterable<Path>) jars.filter(p -> p.toString().endsWith(".jar"))::iterator) {
                Files.copy(jar, target.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static Path tomcatHome(Path work) throws IOException {
        try (Stream<Path> s = Files.list(work)) {
            return s.filter(p -> p.getFileName().toString().startsWith("apache-tomcat-11")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no apache-tomcat-11* under " + work + ": build with -Pwrk (benchmarks/wrk/run.sh does)"));
        }
    }

    private static Path fresh(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        return Files.createDirectories(dir);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    // ---- the report

    private static String environment(String when) {
        try {
            String load = Files.readString(Path.of("/proc/loadavg")).trim();
            return "load average " + when + ": " + load + "\n";
        } catch (IOException e) {
            return "";
        }
    }

    private static String redisVersion(RedissonClient client) {
        Map<String, String> server = client.getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.SERVER);
        return "Redis " + server.get("redis_version");
    }

    static String summary(Options o, List<Cell> cells, List<Profile> profiles, Map<String, Long> failurePolicy,
                          String environment, String redis) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("wrk -t%d, %d rounds of %d s, %d cores, Java %s, %s%n%s%n", o.threads(), o.rounds(),
                o.seconds(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), redis, environment));
        for (String container : o.containers()) {
            sb.append("### ").append(container).append("\n\n")
                    .append("| connections | clients | scenario | req/s | vs no filter | vs hand-written | vs one round trip | p99 ms | container CPU µs/req | Redis CPU µs/req | scripts/req | µs/script | non-2xx, errors |\n")
                    .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (int c : o.connections()) {
                for (int k : o.clients()) {
                    for (Scenario s : o.scenarios()) {
                        List<Cell> mine = select(cells, container, c, k, s);
                        if (mine.isEmpty()) continue;
                        sb.append(String.format("| %d | %,d | %s | %,.0f | %s | %s | %s | %.2f | %.0f | %.1f | %.2f | %.1f | %d, %d |%n",
                                c, k, s.id(), median(mine, x -> x.wrk().perSecond()),
                                ratio(cells, mine, Scenario.NONE), ratio(cells, mine, Scenario.HAND_WRITTEN),
                                ratio(cells, mine, Scenario.ONE_ROUND_TRIP),
                                median(mine, x -> x.wrk().p99Micros() / 1e3), median(mine, Cell::serverCpuMicros),
                                median(mine, Cell::redisCpuMicros), median(mine, Cell::scriptsPerRequest),
                                median(mine, Cell::microsPerScript),
                                mine.stream().mapToLong(x -> x.wrk().non2xx()).sum(), mine.stream().mapToLong(x -> x.wrk().socketErrors()).sum()));
                    }
                }
            }
            sb.append(String.format("%nSluice decisions left to on-backend-failure (sluice.backend-timeout %s), from %s's log: %,d "
                            + "(scripts/req below 1.00: decisions for one key coalesced into one script call, or skipped while the circuit breaker was open)%n%n",
                    o.backendTimeout() == null ? "default" : o.backendTimeout(), container, failurePolicy.getOrDefault(container, 0L)));
        }
        if (!profiles.isEmpty()) {
            sb.append("### Where the CPU of one request goes (profiled runs, µs per request)\n\n| container | scenario | req/s | ");
            for (Profiler.Part p : Profiler.Part.values()) sb.append(p.label).append(" | ");
            sb.append("JVM total | Redis server | JVM + Redis | flame graph |\n|---|---|---|");
            sb.append("---|".repeat(Profiler.Part.values().length + 4)).append('\n');
            for (Profile p : profiles) {
                double jvm = p.cell().serverCpuMicros();
                sb.append(String.format("| %s | %s | %,.0f | ", p.container(), p.scenario().id(), p.cell().wrk().perSecond()));
                for (Profiler.Part part : Profiler.Part.values()) sb.append(String.format("%.1f | ", jvm * p.shares().get(part)));
                sb.append(String.format("%.1f | %.1f | %.1f | %s |%n", jvm, p.cell().redisCpuMicros(), jvm + p.cell().redisCpuMicros(),
                        p.flameGraph().getFileName()));
            }
            sb.append(String.format("%n(profiled: %d connections, %d clients, one run of %d s each, async-profiler cpu samples every 1 ms)%n",
                    profiles.get(0).connections(), profiles.get(0).clients(), o.seconds()));
            sb.append("\n#### Known costs, inclusive (µs per request; a frame's callees included, so rows overlap)\n\n| frame |");
            for (Profile p : profiles) sb.append(' ').append(p.container()).append(' ').append(p.scenario().id()).append(" |");
            sb.append("\n|---|").append("---|".repeat(profiles.size())).append('\n');
            for (Map.Entry<String, String> h : Profiler.HOT_SPOTS) {
                sb.append("| ").append(h.getKey()).append(" |");
                for (Profile p : profiles) sb.append(String.format(" %.1f |", p.cell().serverCpuMicros() * p.hotSpots().get(h.getKey())));
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static List<Cell> select(List<Cell> cells, String container, int connections, int clients, Scenario s) {
        return cells.stream().filter(x -> x.container().equals(container) && x.connections() == connections
                && x.clients() == clients && x.scenario() == s).toList();
    }

    /** The median over rounds of this scenario's req/s over the baseline's in the same round, and their range. */
    private static String ratio(List<Cell> cells, List<Cell> mine, Scenario baseline) {
        List<Double> ratios = new ArrayList<>();
        for (Cell c : mine) {
            cells.stream().filter(x -> x.container().equals(c.container()) && x.round() == c.round()
                            && x.connections() == c.connections() && x.clients() == c.clients() && x.scenario() == baseline)
                    .findFirst().ifPresent(b -> ratios.add(c.wrk().perSecond() / b.wrk().perSecond()));
        }
        if (ratios.isEmpty()) return "";
        double[] v = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        String median = String.format("%.2f×", median(v));
        return v.length == 1 ? median : String.format("%s (%.2f–%.2f)", median, v[0], v[v.length - 1]);
    }

    private static double median(List<Cell> cells, ToDoubleFunction<Cell> f) {
        return median(cells.stream().mapToDouble(f).sorted().toArray());
    }

    private static double median(double[] v) {
        if (v.length == 0) return Double.NaN;
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String csv(List<Cell> cells) {
        StringBuilder sb = new StringBuilder("container,round,connections,clients,scenario,requests,seconds,req_per_s,p50_us,p99_us,non2xx,errors,"
                + "container_cpu_us_per_req,redis_cpu_us_per_req,scripts_per_req,us_per_script\n");
        for (Cell c : cells) {
            sb.append(String.join(",", c.container(), Integer.toString(c.round()), Integer.toString(c.connections()),
                    Integer.toString(c.clients()), c.scenario().id(), Long.toString(c.wrk().requests()),
                    String.format("%.3f", c.wrk().seconds()), String.format("%.1f", c.wrk().perSecond()),
                    Long.toString(c.wrk().p50Micros()), Long.toString(c.wrk().p99Micros()), Long.toString(c.wrk().non2xx()),
                    Long.toString(c.wrk().socketErrors()), String.format("%.1f", c.serverCpuMicros()),
                    String.format("%.2f", c.redisCpuMicros()), String.format("%.3f", c.scriptsPerRequest()),
                    String.format("%.2f", c.microsPerScript()))).append('\n');
        }
        return sb.toString();
    }
}
