package io.sluice.examples.quarkus;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.testing.RateLimitHeaders;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.matchesPattern;

/**
 * The example on Quarkus (ArC, Quarkus REST) against a real Redis: the interceptor and producer registered by
 * the build-compatible extension, rejections answered by the Jakarta REST mapper exactly as the filter would.
 */
@QuarkusTest
@QuarkusTestResource(TestRedisResource.class)
class ExampleResourceTest {
    private static final int IMAGES_LIMIT = 2;

    @Inject
    Sluice sluice;

    @Test
    void postsAdmitExactlyFivePerUserThenAnswer429WithEveryHeader() {
        String user = "alice-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) {
            given().header("X-User", user).body("hello " + i).post("/posts").then().statusCode(201)
                    .header("Location", matchesPattern(".*/posts/[0-9]+"));
        }
        Response rejected = given().header("X-User", user).body("one too many").post("/posts");
        assertThat(rejected.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(rejected.getHeader("Retry-After"));
        assertThat(retryAfter).isBetween(3590L, 3600L);
        RateLimitHeaders.rejected("posts", 5, 3600, retryAfter).forEach((name, value) ->
                assertThat(rejected.getHeader(name)).as(name).isEqualTo(value));
        assertThat(rejected.getContentType()).startsWith("application/problem+json");
        assertThat(rejected.jsonPath().getMap("")).isEqualTo(Map.of("type", "about:blank", "title", "Too Many Requests",
                "status", 429, "detail", "Request limit reached. Retry after " + retryAfter + " seconds.",
                "violated-policies", List.of("posts")));
        assertThat(rejected.asString()).doesNotContain(user);

        given().header("X-User", "bob-" + UUID.randomUUID()).body("hi").post("/posts").then().statusCode(201);
    }

    @Test
    void imageGenerationsPeakAtExactlyTwoAndReturnEveryPermit() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        URI images = URI.create("http://localhost:" + RestAssured.port + "/images?prompt=cat");
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 3 * IMAGES_LIMIT; i++) {
            responses.add(http.sendAsync(HttpRequest.newBuilder(images).timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        try {
            await("the excess rejected while two generate").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(responses.stream().filter(f -> f.isDone() && f.join().statusCode() == 429).count())
                        .isEqualTo(2L * IMAGES_LIMIT);
                assertThat(given().get("/images/state").jsonPath().getInt("inFlight")).isEqualTo(IMAGES_LIMIT);
            });
            assertThat(responses.stream().filter(CompletableFuture::isDone).count()).isEqualTo(2L * IMAGES_LIMIT);
        } finally {
            given().post("/images/finish").then().statusCode(204);
        }
        CompletableFuture.allOf(responses.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        List<HttpResponse<String>> all = responses.stream().map(CompletableFuture::join).toList();
        assertThat(all.stream().filter(r -> r.statusCode() == 200).map(HttpResponse::body))
                .containsExactly("image of cat\n", "image of cat\n");
        HttpResponse<String> rejected = all.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        RateLimitHeaders.concurrencyRejected("images", IMAGES_LIMIT).forEach((name, value) ->
                assertThat(rejected.headers().firstValue(name)).as(name).hasValue(value));
        assertThat(rejected.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
        assertThat(rejected.body()).contains("\"violated-policies\":[\"images\"]");
        assertThat(given().get("/images/state").jsonPath().getInt("peak")).isEqualTo(IMAGES_LIMIT);
        await("every permit back").atMost(Duration.ofSeconds(10)).until(() -> sluice.availablePermits(
                sluice.rules().get("images").orElseThrow(), KeyResolver.GLOBAL).toCompletableFuture().join() == IMAGES_LIMIT);
    }
}
