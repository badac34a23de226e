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
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Starts the example as a user would (embedded Redis, Jetty on a free port) and checks what the README shows. */
@Timeout(120)
class ExampleAppTest {
    private static final long SIX_MINUTES = 360;
    private static ExampleApp.Running app;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        // Exact counts on a loaded 2-core machine: a decision slower than the example's 100 ms deadline would be
        // let through by on-backend-failure (a fourth image admitted, seen under load), so this run allows 5 s.
        app = ExampleApp.start(0, null, Duration.ofSeconds(1), Map.of("sluice.backend-timeout", "5s"));
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        awaitDecisionsByRedis();
    }

    /**
     * The filter's Redis connection is made in the background, and a decision that outlasts the deadline
     * before it exists is let through by on-backend-failure: on a loaded machine alice's
     * first post could be one of those and the count would be off by one. Wait for the connection: a new
     * user's first post says {@code r=4} (a bucket of 5) only when Redis counted it (a failed-over decision says 10).
     */
    private static void awaitDecisionsByRedis() {
        await("the example's first decision through Redis").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> http.send(post("/api/posts").header("X-User", "warm-up-" + UUID.randomUUID()).build(),
                        HttpResponse.BodyHandlers.discarding()).headers().firstValue("RateLimit").orElse("").startsWith("\"posts\";r=4;"));
    }

    @AfterAll
    static void stop() {
        if (app != null) app.close();
    }

    private static HttpRequest.Builder post(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody());
    }

    /** The token bucket: 5 posts in a row, then the next token in 6 minutes (10 an hour). */
    @Test
    void aUserGetsFivePostsInARowThenOneEverySixMinutes() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        List<String> remaining = new ArrayList<>();
        HttpResponse<String> last = null;
        for (int i = 0; i < 6; i++) {
            last = http.send(post("/api/posts").header("X-User", "alice").build(), HttpResponse.BodyHandlers.ofString());
            statuses.add(last.statusCode());
            remaining.add(last.headers().firstValue("X-RateLimit-Remaining").orElse(""));
        }
        assertThat(statuses).containsExactly(201, 201, 201, 201, 201, 429);
        assertThat(remaining).containsExactly("4", "3", "2", "1", "0", "0");
        assertThat(last.headers().firstValue("X-RateLimit-Limit")).hasValue("10");
        assertThat(last.headers().firstValue("RateLimit-Policy")).hasValue("\"posts\";q=10;w=3600");
        assertThat(last.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        // The next token: 6 minutes after the first post (this test's few seconds may have passed).
        assertThat(Long.parseLong(last.headers().firstValue("Retry-After").orElseThrow())).isBetween(SIX_MINUTES - 30, SIX_MINUTES);
        assertThat(last.body()).contains("\"violated-policies\":[\"posts\"]").doesNotContain("alice");

        HttpResponse<String> bob = http.send(post("/api/posts").header("X-User", "bob").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.body()).isEqualTo("{\"created\":true,\"user\":\"bob\"}");
        assertThat(bob.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith("\"posts\";r=4;"));

        HttpResponse<String> anonymous = http.send(post("/api/posts").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(429);
    }

    /** Soft throttling: 10 a minute advertised, 20% over (12) let through, the 13th rejected. */
    @Test
    void searchesGoTwentyPercentOverTheAdvertisedLimit() throws Exception {
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            responses.add(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/api/search?q=sluice"))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = responses.stream().map(HttpResponse::statusCode).toList();
        List<Integer> expected = new ArrayList<>(Collections.nCopies(12, 200));
        expected.add(429);
        assertThat(statuses).containsExactlyElementsOf(expected);
        assertThat(responses.get(0).body()).isEqualTo("{\"query\":\"sluice\",\"results\":[]}");
        for (HttpResponse<String> r : responses) {
            assertThat(r.headers().firstValue("X-RateLimit-Limit")).hasValue("10");
            assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue("\"search\";q=10;w=60");
        }
        // Past the advertised 10, Remaining stays at 0 (never below) while the overage is let through.
        for (int i = 10; i < 13; i++) assertThat(responses.get(i).headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(responses.get(12).body()).contains("\"violated-policies\":[\"search\"]");
    }

    @Test
    void threeImagesAtATime() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(http.sendAsync(post("/api/images").build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) statuses.add(call.get().statusCode());
        assertThat(statuses).containsExactlyInAnyOrder(200, 200, 200, 429, 429);
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            if (call.get().statusCode() == 200) assertThat(call.get().body()).isEqualTo("{\"image\":\"generated\"}");
        }

        // The permits come back when the async requests complete: the next image is admitted.
        HttpResponse<String> next = http.send(post("/api/images").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(next.statusCode()).isEqualTo(200);
    }
}
