package io.sluice.examples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The example's {@code /metrics}, as a Prometheus scraper reads it: the {@code sluice_requests_total} series
 * move by exactly the requests sent. Its own app, so no other test's requests are counted; the warm-up
 * decisions (which wait for the first decision through Redis, as in {@link ExampleAppTest}) are read off a
 * first scrape, and every figure is the difference between two scrapes.
 */
@Timeout(120)
class ExampleMetricsTest {
    /** {@code name{label="value",...} number}, or {@code name number}. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})?\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"");

    private static ExampleApp.Running app;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        // Exact counts on a loaded 2-core machine: a decision slower than the example's 100 ms deadline would be let
        // through by on-backend-failure (a fourth image admitted, seen under load), so this run allows 5 s.
        app = ExampleApp.start(0, null, Duration.ofMillis(500), Map.of("sluice.backend-timeout", "5s"));
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        await("the example's first decision through Redis").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> http.send(post("/api/posts").header("X-User", "warm-up-" + UUID.randomUUID()).build(),
                        HttpResponse.BodyHandlers.discarding()).headers().firstValue("RateLimit").orElse("").startsWith("\"posts\";r=4;"));
    }

    @AfterAll
    static void stop() {
        if (app != null) app.close();
    }

    @Test
    void sluiceRequestsCountEveryDecisionByRuleTypeAndResult() throws Exception {
        HttpResponse<String> first = scrape();
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Content-Type")).hasValue(MetricsServlet.CONTENT_TYPE);
        Map<String, Double> before = samples(first.body());

        List<Integer> posts = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            posts.add(http.send(post("/api/posts").header("X-User", "alice").build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode());
        }
        // No X-User: the key is missing and the rule says on-missing-key=deny.
        posts.add(http.send(post("/api/posts").build(), HttpResponse.BodyHandlers.discarding()).statusCode());
        // A bucket of 5: five posts in a row, the sixth rejected.
        assertThat(posts).containsExactly(201, 201, 201, 201, 201, 429, 429);

        List<CompletableFuture<HttpResponse<Void>>> images = new ArrayList<>();
        for (int i = 0; i < 5; i++) images.add(http.sendAsync(post("/api/images").build(), HttpResponse.BodyHandlers.discarding()));
        List<Integer> imageStatuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<Void>> c : images) imageStatuses.add(c.get().statusCode());
        assertThat(imageStatuses).containsExactlyInAnyOrder(200, 200, 200, 429, 429);
        // A permit goes back when its async request completes, which may be just after its response is read.
        await("the three image permits back").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> samples(scrape().body()).get("sluice_permits_held{rule=\"images\"}") == 0.0);

        String text = scrape().body();
        Map<String, Double> after = samples(text);
        assertThat(delta(before, after, "sluice_requests_total{result=\"allowed\",rule=\"posts\",type=\"rate\"}")).isEqualTo(5);
        assertThat(delta(before, after, "sluice_requests_total{result=\"rejected\",rule=\"posts\",type=\"rate\"}")).isEqualTo(2);
        String failedOpen = "sluice_requests_total{result=\"failed_open\",rule=\"posts\",type=\"rate\"}";
        assertThat(after.getOrDefault(failedOpen, 0.0)).isEqualTo(before.getOrDefault(failedOpen, 0.0));
        assertThat(after.get("sluice_requests_total{result=\"allowed\",rule=\"images\",type=\"concurrency\"}")).isEqualTo(3);
        assertThat(after.get("sluice_requests_total{result=\"rejected\",rule=\"images\",type=\"concurrency\"}")).isEqualTo(2);
        // alice's fifth post took her last token, so the shield answered her sixth without Redis.
        assertThat(delta(before, after, "sluice_shield_rejections_total{rule=\"posts\"}")).isEqualTo(1);
        assertThat(after.get("sluice_circuit_open")).isEqualTo(0);
        assertThat(delta(before, after, "sluice_backend_calls_seconds_count{outcome=\"success\"}")).isEqualTo(5 + 5);
        assertThat(text).contains("# TYPE sluice_requests_total counter").doesNotContain("alice");
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String series) {
        assertThat(after).containsKey(series);
        return after.get(series) - before.getOrDefault(series, 0.0);
    }

    private static HttpResponse<String> scrape() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/metrics"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Every sample of a scrape, labels in name order: {@code name{a="1",b="2"}} to value. */
    static Map<String, Double> samples(String text) {
        Map<String, Double> out = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line.trim());
            if (line.startsWith("#") || !m.matches()) continue;
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) labels.put(l.group(1), l.group(2));
            }
            StringBuilder key = new StringBuilder(m.group(1));
            if (!labels.isEmpty()) {
                key.append('{');
                labels.forEach((k, v) -> key.append(k).append("=\"").append(v).append("\","));
                key.setLength(key.length() - 1);
                key.append('}');
            }
            out.put(key.toString(), Double.parseDouble(m.group(4)));
        }
        return out;
    }

    private static HttpRequest.Builder post(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody());
    }
}
