package io.sluice.benchmarks;

import io.sluice.Sluice;
import io.sluice.filter.SluiceFilter;
import io.sluice.redisson.RedissonBackendProvider;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP benchmark: one embedded Jetty 12 per scenario on 127.0.0.1, a trivial servlet at {@code /hello},
 * and {@link LoadGenerator} driving it. Scenarios: no filter; {@link NaiveRateLimitFilter}; Sluice with
 * every header. Each rate limit is per user (header X-User, 1000 users) and never reached. For each
 * connection count and scenario (interleaved, so they share the machine's mood): a closed-loop phase gives
 * the most req/s; an open-loop phase at a fixed rate gives latency from the intended send time.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.HttpBenchmark [--connections 1,8,64]
 *     [--seconds 5] [--rate 2000] [--runs 3] [--redis redis://127.0.0.1:6379]</pre>
 */
public final class HttpBenchmark {
    static final List<String> SCENARIOS = List.of("none", "naive", "sluice");
    private static final long PERMITS = 1_000_000;
    private static final Duration PERIOD = Duration.ofSeconds(10);
    private static final int USERS = 1000;

    record Options(List<Integer> connections, double seconds, double rate, int runs) {
    }

    /** One measured cell: a scenario at a connection count in one run. */
    record Cell(int run, int connections, String scenario, LoadGenerator.Result saturated, LoadGenerator.Result openLoop) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        if (a.containsKey("redis")) System.setProperty("sluice.bench.redis", a.get("redis"));
        Options options = new Options(
                java.util.Arrays.stream(a.getOrDefault("connections", "1,8,64").split(",")).map(String::trim).map(Integer::parseInt).toList(),
                Double.parseDouble(a.getOrDefault("seconds", "5")),
                Double.parseDouble(a.getOrDefault("rate", "2000")),
                Integer.parseInt(a.getOrDefault("runs", "3")));
        List<Cell> cells = run(options, System.out::println);
        System.out.println();
        System.out.println(summary(cells));
        System.exit(0);
    }

    static List<Cell> run(Options options, java.util.function.Consumer<String> log) throws Exception {
        List<Cell> cells = new ArrayList<>();
        RedissonClient redisson = BenchRedis.client();
        {
            Sluice sluice = Sluice.builder().backend(RedissonBackendProvider.using(redisson)).properties(Map.of(
                    "sluice.key-prefix", "httpbench",
                    "sluice.backend-timeout", "3s",
                    "sluice.headers", "all",
                    "sluice.rules.hello.paths", "/hello",
                    "sluice.rules.hello.key", "header:X-User",
                    "sluice.rules.hello.rate", PERMITS + "/" + PERIOD.toSeconds() + "s")).build();
            Map<String, Server> servers = new LinkedHashMap<>();
            try {
                servers.put("none", start(null));
                servers.put("naive", start(new NaiveRateLimitFilter(redisson, "X-User", PERMITS, PERIOD)));
                servers.put("sluice", start(new SluiceFilter(sluice)));
                for (int run = 1; run <= options.runs(); run++) {
                    for (int connections : options.connections()) {
                        for (String scenario : SCENARIOS) {
                            int port = ((ServerConnector) servers.get(scenario).getConnectors()[0]).getLocalPort();
                            LoadGenerator.run(port, "/hello", connections, 0, Math.min(2, options.seconds()), USERS);
                            LoadGenerator.Result saturated = LoadGenerator.run(port, "/hello", connections, 0, options.seconds(), USERS);
                            LoadGenerator.Result open = LoadGenerator.run(port, "/hello", connections, options.rate(), options.seconds(), USERS);
                            Cell cell = new Cell(run, connections, scenario, saturated, open);
                            cells.add(cell);
                            log.accept(String.format("run %d, %2d connections, %-6s: most %s | at %,.0f req/s: %s", run, connections,
                                    scenario, saturated.describe(), options.rate(), open.describe()));
                        }
                    }
                }
            } finally {
                for (Server s : servers.values()) s.stop();
                sluice.close();
                redisson.getKeys().deleteByPattern("naive:*");
                redisson.getKeys().deleteByPattern("{naive:*");
                redisson.getKeys().deleteByPattern("httpbench*");
                redisson.getKeys().deleteByPattern("{httpbench*");
                BenchRedis.release();
            }
        }
        return cells;
    }

    /** Medians over runs of each cell, and Sluice's ratio to the naive filter. */
    static String summary(List<Cell> cells) {
        StringBuilder sb = new StringBuilder(
                "| connections | scenario | req/s (closed loop, median) | open loop p50 µs | p99 µs | p99.9 µs | req/s vs naive |\n"
                        + "|---|---|---|---|---|---|---|\n");
        for (int c : cells.stream().map(Cell::connections).distinct().toList()) {
            double naive = median(cells, c, "naive", x -> x.saturated().perSecond());
            for (String s : SCENARIOS) {
                double rps = median(cells, c, s, x -> x.saturated().perSecond());
                sb.append(String.format("| %d | %s | %,.0f | %,.0f | %,.0f | %,.0f | %.2f× |%n", c, s, rps,
                        median(cells, c, s, x -> x.openLoop().latencyMicros().getValueAtPercentile(50)),
                        median(cells, c, s, x -> x.openLoop().latencyMicros().getValueAtPercentile(99)),
                        median(cells, c, s, x -> x.openLoop().latencyMicros().getValueAtPercentile(99.9)),
                        rps / naive));
            }
        }
        return sb.toString();
    }

    static double median(List<Cell> cells, int connections, String scenario, java.util.function.ToDoubleFunction<Cell> f) {
        double[] v = cells.stream().filter(x -> x.connections() == connections && x.scenario().equals(scenario))
                .mapToDouble(f).sorted().toArray();
        if (v.length == 0) return Double.NaN;
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Server start(Filter filter) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        ServletHolder hello = new ServletHolder(new Hello());
        hello.setAsyncSupported(true);
        context.addServlet(hello, "/hello");
        if (filter != null) {
            FilterHolder holder = new FilterHolder(filter);
            holder.setAsyncSupported(true);
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
        }
        server.setHandler(context);
        server.start();
        return server;
    }
}
