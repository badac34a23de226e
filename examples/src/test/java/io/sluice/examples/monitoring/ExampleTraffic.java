package io.sluice.examples.monitoring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.awaitility.Awaitility.await;

/** Requests to a running example app, as its README's curl commands send them, and its {@code /metrics}. */
final class ExampleTraffic {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    ExampleTraffic(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /**
     * Until a new user's first post says {@code r=4} (a bucket of 5), which only a decision made by Redis says: the
     * connection is made in the background, and the decisions before it follow the failure policy.
     */
    void awaitDecisionsByRedis() {
        await("the example's first decision through Redis").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> http.send(post().header("X-User", "warm-up-" + UUID.randomUUID()).build(),
                        HttpResponse.BodyHandlers.discarding()).headers().firstValue("RateLimit").orElse("").startsWith("\"posts\";r=4;"));
    }

    /** {@code POST /api/posts} as {@code user}; its status. */
    int post(String user) throws Exception {
        return http.send(post().header("X-User", user).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** {@code GET /api/search}; its status. */
    int search() throws Exception {
        return http.send(request("/api/search?q=sluice").GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** {@code POST /api/images}, answered when the image is generated (or at once when rejected); its status. */
    CompletableFuture<Integer> imageAsync() {
        return http.sendAsync(request("/api/images").POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding()).thenApply(HttpResponse::statusCode);
    }

    /** {@code GET /metrics}: the Prometheus text a scraper reads. */
    String metrics() throws Exception {
        HttpResponse<String> response = http.send(request("/metrics").GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) throw new IllegalStateException("/metrics answered " + response.statusCode());
        return response.body();
    }

    private HttpRequest.Builder post() {
        return request("/api/posts").POST(HttpRequest.BodyPublishers.noBody());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT);
    }
}
