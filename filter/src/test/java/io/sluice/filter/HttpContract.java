package io.sluice.filter;

import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.testing.RateLimitHeaders;
import io.sluice.testing.TestRedis;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/** The filter over real HTTP, real Redis and a real container; run once per container. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HttpContract {
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();

    private final Containers.Kind kind;
    private Containers.Running server;
    private String prefix;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    HttpContract(Containers.Kind kind) {
        this.kind = kind;
    }

    static Map<String, String> initParams(String prefix) {
        return Map.of("config", "classpath:sluice-test.properties",
                "sluice.redis.address", TestRedis.address(),
                "sluice.key-prefix", prefix);
    }

    @BeforeAll
    void start() {
        prefix = "t" + UUID.randomUUID().toString().substring(0, 8);
        server = kind.start(initParams(prefix));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @BeforeEach
    void resetGauge() {
        TestServlets.Gauge.reset();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private Sluice sluice() {
        return server.filter().sluice();
    }

    @Test
    void aRateRuleAdmitsExactlyItsLimitThenRejectsWithEveryHeader() {
        String user = "alice-" + UUID.randomUUID();
        for (int remaining = 4; remaining >= 0; remaining--) {
            Response admitted = given().header("X-User", user).post(url("/api/posts"));
            assertThat(admitted.statusCode()).isEqualTo(200);
            RateLimitHeaders.admitted("posts", 5, 3600, remaining, 3600).forEach(admitted.then()::header);
        }
        Response rejected = given().header("X-User", user).post(url("/api/posts"));
        RateLimitHeaders.rejected("posts", 5, 3600, 3600).forEach(rejected.then()::header);
        rejected.then()
                .statusCode(429)
                .contentType("application/problem+json")
                .body("type", equalTo("about:blank"))
                .body("title", equalTo("Too Many Requests"))
                .body("status", equalTo(429))
                .body("detail", equalTo("Request limit reached. Retry after 3600 seconds."))
                .body("violated-policies", equalTo(List.of("posts")));
        assertThat(rejected.asString()).doesNotContain(user).doesNotContain("127.0.0.1").doesNotContain(prefix);
    }

    /** Servlets answer HEAD by running their GET handler, so a GET rule must count HEAD too (the contract). */
    @Test
    void aGetRuleAlsoCountsHeadRequests() {
        String user = "head-" + UUID.randomUUID();
        TestServlets.Probe.reset();
        for (int remaining = 4; remaining >= 2; remaining--) {
            Response head = given().header("X-User", user).head(url("/m"));
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.getHeader("X-RateLimit-Remaining")).isEqualTo(Integer.toString(remaining));
        }
        for (int remaining = 1; remaining >= 0; remaining--) {
            given().header("X-User", user).get(url("/m")).then().statusCode(200)
                    .header("X-RateLimit-Remaining", Integer.toString(remaining));
        }
        Response rejected = given().header("X-User", user).head(url("/m"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.getHeader("Retry-After")).isEqualTo("3600");
        assertThat(TestServlets.Probe.calls).hasValue(5);
    }

    @Test
    void keysAreIndependentAndOtherMethodsAndPathsAreNotLimited() {
        String a = "a-" + UUID.randomUUID();
        String b = "b-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) given().header("X-User", a).post(url("/api/posts")).then().statusCode(200);
        given().header("X-User", a).post(url("/api/posts")).then().statusCode(429);
        given().header("X-User", b).post(url("/api/posts")).then().statusCode(200).header("X-RateLimit-Remaining", "4");
        Response get = given().header("X-User", a).get(url("/api/posts"));
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.getHeader("X-RateLimit-Limit")).isNull();
        assertThat(get.getHeader("RateLimit")).isNull();
        Response open = given().header("X-User", a).post(url("/open"));
        assertThat(open.statusCode()).isEqualTo(200);
        assertThat(open.getHeader("RateLimit-Policy")).isNull();
    }

    @Test
    void aRequestWithoutTheKeySkipsTheRule() {
        for (int i = 0; i < 7; i++) {
            Response r = given().post(url("/api/posts"));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.getHeader("X-RateLimit-Limit")).isNull();
        }
    }

    @Test
    void aForwardedRequestIsCountedOnce() {
        String user = "once-" + UUID.randomUUID();
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().header("X-User", user).get(url("/once/forward")).then()
                    .statusCode(200).header("X-RateLimit-Remaining", Integer.toString(remaining));
        }
        given().header("X-User", user).get(url("/once/forward")).then().statusCode(429);
    }

    @Test
    void dryRunNeverRejectsButStillCountsAndAdvertises() {
        String user = "dry-" + UUID.randomUUID();
        List<String> remaining = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Response r = given().header("X-User", user).get(url("/dry"));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.getHeader("Retry-After")).isNull();
            remaining.add(r.getHeader("X-RateLimit-Remaining"));
        }
        assertThat(remaining).containsExactly("1", "0", "0", "0");
    }

    @Test
    void hostileKeyValuesAreHashedAndNeverBreakARequest() {
        String brace = "{evil}" + UUID.randomUUID();
        String huge = "x".repeat(10_000);
        String nonAscii = "Zoë-日本-" + UUID.randomUUID();
        for (String value : List.of(brace, huge, nonAscii)) {
            given().header("X-User", value).post(url("/api/posts")).then().statusCode(200).header("X-RateLimit-Remaining", "4");
        }
        List<String> keys = new ArrayList<>();
        redis.client().getKeys().getKeysByPattern(prefix + "*").forEach(keys::add);
        redis.client().getKeys().getKeysByPattern("{" + prefix + "*").forEach(keys::add);
        assertThat(keys).isNotEmpty();
        assertThat(keys).allSatisfy(k -> assertThat(k).doesNotContain("{evil}").doesNotContain(brace.substring(6)).doesNotContain("x".repeat(16)).doesNotContain("Zoë").doesNotContain(nonAscii.substring(9)));
        assertThat(keys).anySatisfy(k -> assertThat(k).contains(KeyResolver.hash(brace)));
    }

    @Test
    void concurrencyPeaksAtExactlyTheLimitAndReturnsEveryPermit() {
        assertConcurrencyCapped("/slow", List.of(url("/slow")));
    }

    @Test
    void asyncRequestsKeepTheirPermitUntilTheyComplete() {
        assertConcurrencyCapped("/async", List.of(url("/async")));
    }

    @Test
    void aServletThatThrowsReturnsItsPermit() {
        for (int i = 0; i < 5; i++) {
            assertThat(given().get(url("/boom")).statusCode()).isEqualTo(500);
        }
        awaitAllPermitsFree(sluice());
    }

    /** Fires 3×limit parallel requests at a gated resource: exactly limit get in, the rest are rejected at once. */
    void assertConcurrencyCapped(String label, List<String> urls) {
        int limit = 3;
        int clients = 9;
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(urls.get(i % urls.size())))
                    .timeout(Duration.ofSeconds(60)).GET().build();
            responses.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                if (r != null) statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
            }));
        }
        // Everyone over the limit is answered while the admitted ones are still held at the gate.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(count(statuses, 429)).as(label + " rejected").isEqualTo(clients - limit);
            assertThat(TestServlets.Gauge.inFlight.get()).as(label + " in flight").isEqualTo(limit);
        });
        TestServlets.Gauge.gate.countDown();
        CompletableFuture.allOf(responses.toArray(CompletableFuture[]::new)).join();
        assertThat(count(statuses, 200)).isEqualTo(limit);
        assertThat(count(statuses, 429)).isEqualTo(clients - limit);
        assertThat(statuses.keySet()).containsExactlyInAnyOrder(200, 429);
        assertThat(TestServlets.Gauge.peak.get()).isEqualTo(limit);
        assertThat(TestServlets.Gauge.entered.get()).isEqualTo(limit);
        HttpResponse<String> rejected = responses.stream().map(CompletableFuture::join)
                .filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        RateLimitHeaders.concurrencyRejected("slow", 3).forEach((name, value) ->
                assertThat(rejected.headers().firstValue(name)).as(name).hasValue(value));
        assertThat(rejected.headers().firstValue("X-RateLimit-Limit")).isEmpty();
        assertThat(rejected.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
        assertThat(rejected.body()).contains("\"violated-policies\":[\"slow\"]").contains("\"status\":429");
        HttpResponse<String> admitted = responses.stream().map(CompletableFuture::join)
                .filter(r -> r.statusCode() == 200).findFirst().orElseThrow();
        assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"slow\";q=3;qu=\"concurrent-requests\"");
        assertThat(admitted.headers().firstValue("RateLimit").orElseThrow()).matches("\"slow\";r=[0-2]");
        awaitAllPermitsFree(sluice());
    }

    static void awaitAllPermitsFree(Sluice sluice) {
        var rule = sluice.rules().get("slow").orElseThrow();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(sluice.availablePermits(rule, KeyResolver.GLOBAL).toCompletableFuture().join()).isEqualTo(3));
    }

    private static int count(Map<Integer, AtomicInteger> statuses, int status) {
        AtomicInteger n = statuses.get(status);
        return n == null ? 0 : n.get();
    }

    static {
        RestAssured.urlEncodingEnabled = true;
    }
}
