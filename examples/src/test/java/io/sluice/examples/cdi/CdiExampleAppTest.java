package io.sluice.examples.cdi;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Starts the CDI example as a user would (embedded Redis, Jetty on a free port) and checks what the README shows. */
@Timeout(120)
class CdiExampleAppTest {
    private static CdiExampleApp.Running app;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        // Exact counts on a loaded 2-core machine: a decision slower than the default 100 ms deadline would be let
        // through by on-backend-failure, so this run allows 5 s.
        app = CdiExampleApp.start(0, null, Duration.ofSeconds(1), Map.of("sluice.backend-timeout", "5s"));
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() {
        if (app != null) app.close();
    }

    private static HttpResponse<String> generate(String user) throws Exception {
        return http.send(request(user), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(String user) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/api/images"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("a cat"));
        if (user != null) b.header("X-User", user);
        return b.build();
    }

    @Test
    void threeImagesAtATimeForEveryone() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(http.sendAsync(request("concurrent-" + i), HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) statuses.add(call.get().statusCode());
        assertThat(statuses).containsExactlyInAnyOrder(200, 200, 200, 429, 429);
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            HttpResponse<String> r = call.get();
            if (r.statusCode() == 200) {
                assertThat(r.body()).matches("\\{\"image\":\"img-[0-9a-f-]{36}\"}");
            } else {
                assertThat(r.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
                assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
                assertThat(r.body()).contains("\"violated-policies\":[\"images\"]");
            }
        }

        // The permits come back when the calls return: the next image is admitted.
        assertThat(generate("concurrent-after").statusCode()).isEqualTo(200);
    }

    @Test
    void fiveImagesAnHourPerUser() throws Exception {
        for (int i = 0; i < 5; i++) assertThat(generate("quota-alice").statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = generate("quota-alice");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(v ->
                assertThat(Long.parseLong(v)).isBetween(1L, 3600L));
        assertThat(rejected.body()).contains("\"violated-policies\":[\"image-quota\"]").doesNotContain("alice");

        assertThat(generate("quota-bob").statusCode()).isEqualTo(200);
    }

    @Test
    void noUserNoImage() throws Exception {
        HttpResponse<String> anonymous = generate(null);
        assertThat(anonymous.statusCode()).isEqualTo(429);
        assertThat(anonymous.body()).contains("\"violated-policies\":[\"image-quota\"]");
    }
}
