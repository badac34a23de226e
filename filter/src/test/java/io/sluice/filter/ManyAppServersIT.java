package io.sluice.filter;

import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.rule.ConfigLoader;
import io.sluice.rule.Rule;
import io.sluice.testing.RedisCluster;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisYaml;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three app servers, each its own JVM (embedded Jetty 12, its own Sluice and Redisson client), share one Redis,
 * and once a 3-master Redis Cluster. Load goes to all three at once. Each process appends the wall-clock
 * begin and end of every admitted request's work to its own file; the test merges them. All processes run on
 * this host and read the same system clock (CLOCK_REALTIME, microseconds), and each interval lies strictly
 * inside its request's permit (the servlet runs after the filter acquired and before it releases), so the merged
 * overlap needs no slack: it can never exceed the number of permits held at once.
 */
class ManyAppServersIT {
    private static final int SERVERS = 3;
    private static final int RATE = 20;
    private static final int CONCURRENCY = 4;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"single", "cluster"})
    void limitsHoldAcrossThreeAppServerJvms(String topology) throws Exception {
        long started = System.nanoTime();
        Path dir = Files.createTempDirectory("sluice-many-");
        List<Process> servers = new ArrayList<>();
        AutoCloseable redis = null;
        try {
            Map<String, String> params = new LinkedHashMap<>();
            params.put("config", "classpath:sluice-many-servers.properties");
            params.put("sluice.key-prefix", "many" + UUID.randomUUID().toString().substring(0, 8));
            if (topology.equals("single")) {
                RedisProcess single = RedisProcess.start();
                redis = single;
                params.put("sluice.redis.address", single.address());
            } else {
                RedisCluster cluster = RedisCluster.start(3, 0, Duration.ofSeconds(2));
                redis = cluster;
                params.put("sluice.redis.config", RedisYaml.file(cluster.yaml()));
            }
            for (int i = 0; i < SERVERS; i++) servers.add(launch(dir, i, params));
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < SERVERS; i++) ports.add(awaitPort(dir, i, servers.get(i)));
            System.out.printf("many-servers %s: %d JVMs up in %d ms%n", topology, SERVERS,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));

            // 1. A rate: 90 parallel POSTs spread over the three servers, exactly 20 admitted in total.
            String user = "u-" + UUID.randomUUID();
            Map<Integer, Integer> posts = fire(90, i -> HttpRequest.newBuilder(uri(ports.get(i % SERVERS), "/api/posts"))
                    .header("X-User", user).POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build());
            assertThat(posts).containsOnlyKeys(200, 429);
            assertThat(posts.get(200)).isEqualTo(RATE);
            assertThat(posts.get(429)).isEqualTo(90 - RATE);

            // 2. Saturation: 24 requests that hold until the test opens the gate; exactly C get in, across servers.
            AtomicInteger gatedOk = new AtomicInteger();
            AtomicInteger gatedRejected = new AtomicInteger();
            List<CompletableFuture<HttpResponse<String>>> gated = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                HttpRequest r = HttpRequest.newBuilder(uri(ports.get(i % SERVERS), "/recorded?gate")).timeout(Duration.ofSeconds(60)).build();
                gated.add(http.sendAsync(r, HttpResponse.BodyHandlers.ofString()).whenComplete((resp, e) -> {
                    if (resp != null && resp.statusCode() == 200) gatedOk.incrementAndGet();
                    if (resp != null && resp.statusCode() == 429) gatedRejected.incrementAndGet();
                }));
            }
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(gatedRejected.get()).isEqualTo(24 - CONCURRENCY);
                assertThat(events(dir, "B")).isEqualTo(CONCURRENCY);
            });
            Files.writeString(dir.resolve("gate"), "open");
            CompletableFuture.allOf(gated.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(gatedOk.get()).isEqualTo(CONCURRENCY);

            // 3. Churn: 18 clients (6 per server) for 3 s of 20 ms requests.
            AtomicInteger churnOk = new AtomicInteger();
            AtomicInteger churnRejected = new AtomicInteger();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            ExecutorService clients = Executors.newFixedThreadPool(6 * SERVERS);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int c = 0; c < 6 * SERVERS; c++) {
                    int port = ports.get(c % SERVERS);
                    running.add(clients.submit(() -> {
                        while (System.nanoTime() < end) {
                            HttpRequest r = HttpRequest.newBuilder(uri(port, "/recorded?ms=20")).timeout(Duration.ofSeconds(30)).build();
                            int status = http.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
                            (status == 200 ? churnOk : churnRejected).incrementAndGet();
                            assertThat(status).isIn(200, 429);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) f.get(60, TimeUnit.SECONDS);
            } finally {
                clients.shutdownNow();
            }

            // Every admitted request left one complete interval; merged, at most C overlap, and C did.
            List<long[]> intervals = intervals(dir);
            assertThat(intervals).hasSize(CONCURRENCY + churnOk.get());
            int peak = peakOverlap(intervals);
            System.out.printf("many-servers %s: posts %d admitted / %d rejected; gated %d / %d; churn %d admitted / %d rejected;"
                            + " %d intervals from %d JVMs, merged peak in flight %d (limit %d); total %d ms%n",
                    topology, posts.get(200), posts.get(429), gatedOk.get(), gatedRejected.get(), churnOk.get(),
                    churnRejected.get(), intervals.size(), SERVERS, peak, CONCURRENCY,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            assertThat(peak).isEqualTo(CONCURRENCY);
            assertThat(churnOk.get()).isPositive();

            // Afterwards, seen from a fourth Sluice on the same Redis: every permit free, the rate budget spent.
            Map<String, String> props = new HashMap<>(ConfigLoader.load("classpath:sluice-many-servers.properties",
                    Map.of(), getClass().getClassLoader()));
            params.forEach((k, v) -> {
                if (k.startsWith("sluice.")) props.put(k, v);
            });
            try (Sluice observer = Sluice.fromProperties(props)) {
                Rule work = observer.rules().get("work").orElseThrow();
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                        observer.availablePermits(work, KeyResolver.GLOBAL).toCompletableFuture().join()).isEqualTo(CONCURRENCY));
                Rule postsRule = observer.rules().get("posts").orElseThrow();
                assertThat(observer.admit(List.of(postsRule), r -> user).toCompletableFuture().join().allowed()).isFalse();
            }
        } finally {
            for (Process p : servers) p.destroyForcibly();
            for (Process p : servers) p.waitFor(30, TimeUnit.SECONDS);
            if (redis != null) redis.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** Starts app server {@code i}: this test's own classpath, a small heap, fast start-up. */
    private static Process launch(Path dir, int i, Map<String, String> params) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dsluice.test.intervals=" + dir.resolve("intervals-" + i),
                "-Dsluice.test.gate=" + dir.resolve("gate"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"),
                AppServerMain.class.getName(), dir.resolve("port-" + i).toString()));
        params.forEach((k, v) -> command.add(k + "=" + v));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server-" + i + ".log").toFile()).start();
    }

    private static int awaitPort(Path dir, int i, Process server) throws IOException {
        Path portFile = dir.resolve("port-" + i);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.exists(portFile)) {
            if (!server.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("app server " + i + " did not start:\n"
                        + Files.readString(dir.resolve("server-" + i + ".log")));
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling, bounded
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    interface RequestFactory {
        HttpRequest request(int i);
    }

    /** Sends {@code n} requests at once; returns how many got each status. */
    private Map<Integer, Integer> fire(int n, RequestFactory requests) {
        List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) sent.add(http.sendAsync(requests.request(i), HttpResponse.BodyHandlers.discarding()));
        Map<Integer, Integer> statuses = new HashMap<>();
        for (CompletableFuture<HttpResponse<Void>> f : sent) statuses.merge(f.join().statusCode(), 1, Integer::sum);
        return statuses;
    }

    private static List<String> lines(Path dir) throws IOException {
        List<String> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("intervals-")).toList()) {
                for (String line : Files.readAllLines(f)) all.add(f.getFileName() + " " + line);
            }
        }
        return all;
    }

    private static long events(Path dir, String kind) throws IOException {
        return lines(dir).stream().filter(l -> l.split(" ")[1].equals(kind)).count();
    }

    /** {begin, end} wall-clock micros of every completed request, across all processes. */
    private static List<long[]> intervals(Path dir) throws IOException {
        Map<String, long[]> byRequest = new HashMap<>();
        for (String line : lines(dir)) {
            String[] f = line.split(" ");
            long[] interval = byRequest.computeIfAbsent(f[0] + "#" + f[2], k -> new long[] {-1, -1});
            interval[f[1].equals("B") ? 0 : 1] = Long.parseLong(f[3]);
        }
        assertThat(byRequest.values()).as("every interval has a begin and an end").allMatch(i -> i[0] >= 0 && i[1] >= i[0]);
        return new ArrayList<>(byRequest.values());
    }

    /** The most intervals open at one instant; a begin and an end at the same microsecond count as overlapping. */
    static int peakOverlap(List<long[]> intervals) {
        List<long[]> events = new ArrayList<>();
        for (long[] i : intervals) {
            events.add(new long[] {i[0], +1});
            events.add(new long[] {i[1], -1});
        }
        events.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparing(e -> -e[1]));
        int open = 0;
        int peak = 0;
        for (long[] e : events) {
            open += (int) e[1];
            peak = Math.max(peak, open);
        }
        return peak;
    }
}
