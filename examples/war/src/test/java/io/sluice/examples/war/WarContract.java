package io.sluice.examples.war;

import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.sluice.testing.RateLimitHeaders;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The same HTTP checks of the unmodified example WAR on every container: the rate rule admits exactly its
 * limit with every header, the concurrency rule lets exactly C reports run at once, sync or async, turns the
 * rest away while they run, and gets every permit back. Run once per container by the {@code *IT} classes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WarContract {
    /** A server to test: what it must report and how the WAR gets into it. */
    interface Target {
        /** The Servlet version the server implements, such as "6.0". */
        String servletVersion();

        /** A part of the server info that names the container and its version. */
        String serverInfo();

        /** Starts the server with the WAR, given the deployment's environment (Redis, key prefix). */
        Deployed deploy(Map<String, String> environment);
    }

    /** A server given by its parts (the application servers' tests). */
    record Server(String servletVersion, String serverInfo, Function<Map<String, String>, Deployed> deployer)
            implements Target {
        @Override
        public Deployed deploy(Map<String, String> environment) {
            return deployer.apply(environment);
        }
    }

    /** The servlet containers of the compatibility table. */
    enum Container implements Target {
        TOMCAT_10_1("6.0", "Apache Tomcat/" + System.getProperty("it.tomcat10.version"),
                settings -> StockContainers.tomcat("tomcat-10.1", StockContainers.property("it.tomcat10.home"), settings)),
        TOMCAT_11("6.1", "Apache Tomcat/" + System.getProperty("it.tomcat11.version"),
                settings -> StockContainers.tomcat("tomcat-11", StockContainers.property("it.tomcat11.home"), settings)),
        JETTY_EE10("6.0", "jetty/" + System.getProperty("it.jetty.version"),
                settings -> StockContainers.jetty("jetty-ee10", StockContainers.property("it.jetty.home"), "ee10", settings)),
        // Servlet 5.0: the API the filter compiles against.
        JETTY_EE9("5.0", "jetty/" + System.getProperty("it.jetty.version"),
                settings -> StockContainers.jetty("jetty-ee9", StockContainers.property("it.jetty.home"), "ee9", settings)),
        UNDERTOW("6.0", "Undertow - " + io.undertow.Version.getVersionString(),
                settings -> EmbeddedUndertow.deploy(StockContainers.property("it.exploded-war"), settings));

        final String servletVersion;
        /** A part of the server info that names the container and its version. */
        final String serverInfo;
        /** Starts the container with the WAR, given the deployment's environment (Redis, key prefix). */
        final Function<Map<String, String>, Deployed> deploy;

        Container(String servletVersion, String serverInfo, Function<Map<String, String>, Deployed> deploy) {
            this.servletVersion = servletVersion;
            this.serverInfo = serverInfo;
            this.deploy = deploy;
        }

        @Override
        public String servletVersion() {
            return servletVersion;
        }

        @Override
        public String serverInfo() {
            return serverInfo;
        }

        @Override
        public Deployed deploy(Map<String, String> environment) {
            return deploy.apply(environment);
        }
    }

    /**
     * A concurrency rule with key {@code global} in front of slow requests to {@code paths} (taken in turn): its
     * limit, and what an admitted request answers. {@code headersOnAdmitted}: whether admitted responses carry the
     * rule's headers (the filter writes them; behind a {@code @Limited} bean no one can).
     */
    record Batch(String rule, int limit, List<String> paths, String admittedBody, boolean headersOnAdmitted) {
        static Batch reports(List<String> paths) {
            return new Batch("reports", REPORTS_LIMIT, paths, "report ready\n", true);
        }
    }

    private static final int REPORTS_LIMIT = 3;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final Target container;
    Deployed app;

    WarContract(Target container) {
        this.container = container;
    }

    @RegisterExtension
    final TestWatcher printLogsOnFailure = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (app != null) System.err.println(app.logs());
        }
    };

    @BeforeAll
    void start() {
        String prefix = "war-" + getClass().getSimpleName() + "-" + UUID.randomUUID().toString().substring(0, 8);
        long t0 = System.nanoTime();
        app = container.deploy(environment(Map.of("SLUICE_REDIS_ADDRESS", TestRedis.address(), "SLUICE_KEY_PREFIX", prefix)));
        System.out.printf("%s: %s ready in %d ms%n", getClass().getSimpleName(), app.baseUrl(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    /** Stops the container; a stock Tomcat also checks that the application stopped every thread it started. */
    @AfterAll
    void stop() {
        if (app != null) app.close();
    }

    /** The environment the server starts with: {@code common} (Redis, key prefix), plus what a subclass adds. */
    Map<String, String> environment(Map<String, String> common) {
        return common;
    }

    String url(String path) {
        return app.baseUrl() + path;
    }

    JsonPath probe() {
        Response r = given().get(url("/probe"));
        assertThat(r.statusCode()).isEqualTo(200);
        return r.jsonPath();
    }

    @Test
    void theWarRunsOnTheServletVersionOfThisContainerWithItsRulesLoaded() {
        JsonPath probe = probe();
        assertThat(probe.getString("servlet")).isEqualTo(container.servletVersion());
        assertThat(probe.getString("server")).containsIgnoringCase(container.serverInfo());
        assertThat(probe.getInt("free.reports")).isEqualTo(REPORTS_LIMIT);
    }

    @Test
    void postsAdmitExactlyTheLimitPerUserThenRejectWithEveryHeader() {
        String user = "alice-" + UUID.randomUUID();
        long firstSent = System.nanoTime();
        for (int remaining = 4; remaining >= 0; remaining--) {
            Response created = given().header("X-User", user).post(url("/api/posts"));
            assertThat(created.statusCode()).isEqualTo(201);
            long reset = resetSince(created, firstSent);
            assertThat(headerLines(created)).containsAll(lines(RateLimitHeaders.admitted("posts", 5, 3600, remaining, reset)));
        }
        assertPostRejected(given().header("X-User", user).post(url("/api/posts")), firstSent, user);

        // Another user has a budget of their own; reading posts and anonymous posts are not limited.
        given().header("X-User", "bob-" + UUID.randomUUID()).post(url("/api/posts")).then()
                .statusCode(201).header("X-RateLimit-Remaining", "4");
        Response read = given().header("X-User", user).get(url("/api/posts"));
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.getHeader("RateLimit-Policy")).isNull();
        for (int i = 0; i < 6; i++) {
            Response anonymous = given().post(url("/api/posts"));
            assertThat(anonymous.statusCode()).isEqualTo(201);
            assertThat(anonymous.getHeader("X-RateLimit-Limit")).isNull();
        }
        assertDecidedByRedis();
    }

    /** The application's REQUEST-only filters after Sluice run once for every admitted request; none is skipped. */
    @Test
    void theApplicationsOwnFiltersRunForEveryAdmittedRequest() {
        given().post(url("/probe/reset")).then().statusCode(204);
        String user = "carol-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            given().header("X-User", "mallory-" + UUID.randomUUID()).get(url("/secure/data")).then().statusCode(401);
        }
        for (int remaining = 4; remaining >= 0; remaining--) {
            given().header("X-User", user).header("Authorization", "Bearer demo").get(url("/secure/data")).then()
                    .statusCode(200).header("X-RateLimit-Remaining", Integer.toString(remaining));
        }
        given().header("X-User", user).header("Authorization", "Bearer demo").get(url("/secure/data")).then().statusCode(429);
        given().header("X-User", user).head(url("/secure/data")).then().statusCode(429);
        JsonPath probe = probe();
        // 3 refused by the authentication filter after Sluice had admitted them, 5 served; the 429s never got past Sluice.
        assertThat(probe.getInt("audited")).isEqualTo(5);
        assertThat(probe.getInt("auditedAsOther")).isZero();
        assertDecidedByRedis();
    }

    /** A post of {@code user} rejected by rule {@code posts}, the first post of the window sent at {@code firstSent}. */
    static void assertPostRejected(Response rejected, long firstSent, String user) {
        assertThat(rejected.statusCode()).isEqualTo(429);
        long retryAfter = resetSince(rejected, firstSent);
        assertThat(headerLines(rejected)).containsAll(lines(RateLimitHeaders.rejected("posts", 5, 3600, retryAfter)));
        assertThat(rejected.getContentType()).startsWith("application/problem+json");
        assertThat(rejected.jsonPath().getMap("")).isEqualTo(Map.of("type", "about:blank", "title", "Too Many Requests",
                "status", 429, "detail", "Request limit reached. Retry after " + retryAfter + " seconds.",
                "violated-policies", List.of("posts")));
        assertThat(rejected.asString()).doesNotContain(user);
    }

    @Test
    void syncReportsPeakAtExactlyTheLimitAndReturnEveryPermit() {
        assertBatchCapped(Batch.reports(List.of("/reports/sync")));
        assertBatchCapped(Batch.reports(List.of("/reports/sync")));
    }

    @Test
    void asyncReportsHoldTheirPermitsUntilTheyCompleteAndThenReturnThem() {
        assertBatchCapped(Batch.reports(List.of("/reports/async")));
        assertBatchCapped(Batch.reports(List.of("/reports/async")));
    }

    @Test
    void syncAndAsyncReportsShareOneLimit() {
        assertBatchCapped(Batch.reports(List.of("/reports/sync", "/reports/async")));
    }

    /**
     * Fires 3×C parallel reports that would run a minute: exactly C are admitted and held, everyone else is
     * answered 429 while they run; once released, all C finish and every permit is free again.
     */
    void assertBatchCapped(Batch batch) {
        int limit = batch.limit();
        int clients = 3 * limit;
        List<String> paths = batch.paths();
        given().post(url("/probe/reset")).then().statusCode(204);
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url(paths.get(i % paths.size()) + "?seconds=60")))
                    .timeout(Duration.ofSeconds(90)).GET().build();
            responses.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        try {
            await("the excess rejected while " + limit + " run").atMost(Duration.ofSeconds(60))
                    .failFast("a report was answered before its release, not with 429",
                            () -> responses.stream().anyMatch(f -> f.isDone() && f.join().statusCode() != 429))
                    .untilAsserted(() -> {
                assertThat(responses.stream().filter(f -> f.isDone() && f.join().statusCode() == 429).count())
                        .isEqualTo(clients - limit);
                assertThat(probe().getInt("inFlight")).isEqualTo(limit);
            });
            assertThat(responses.stream().filter(CompletableFuture::isDone).count())
                    .as("only the rejected are answered; the admitted are still held").isEqualTo(clients - limit);
        } finally {
            given().post(url("/probe/release")).then().statusCode(204);
        }
        CompletableFuture.allOf(responses.toArray(CompletableFuture[]::new)).orTimeout(60, TimeUnit.SECONDS).join();
        List<HttpResponse<String>> all = responses.stream().map(CompletableFuture::join).toList();
        assertThat(all).extracting(HttpResponse::statusCode).containsOnly(200, 429)
                .filteredOn(s -> s == 200).hasSize(limit);

        HttpResponse<String> rejected = all.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        RateLimitHeaders.concurrencyRejected(batch.rule(), limit).forEach((name, value) ->
                assertThat(rejected.headers().firstValue(name)).as(name).hasValue(value));
        assertThat(rejected.headers().firstValue("X-RateLimit-Limit")).isEmpty();
        assertThat(rejected.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
        assertThat(rejected.body()).contains("\"violated-policies\":[\"" + batch.rule() + "\"]").contains("\"status\":429");
        HttpResponse<String> admitted = all.stream().filter(r -> r.statusCode() == 200).findFirst().orElseThrow();
        assertThat(admitted.body()).isEqualTo(batch.admittedBody());
        if (batch.headersOnAdmitted()) {
            assertThat(admitted.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"" + batch.rule() + "\";q=" + limit + ";qu=\"concurrent-requests\"");
            assertThat(admitted.headers().firstValue("RateLimit").orElseThrow())
                    .matches("\"" + batch.rule() + "\";r=[0-" + (limit - 1) + "]");
        }

        JsonPath probe = probe();
        assertThat(probe.getInt("peak")).as("peak in flight").isEqualTo(limit);
        assertThat(probe.getInt("started")).isEqualTo(limit);
        assertThat(probe.getInt("finished")).isEqualTo(limit);
        assertThat(probe.getInt("inFlight")).isZero();
        if (batch.paths().stream().allMatch(p -> p.startsWith("/reports/"))) {
            // The audit filter after Sluice (REQUEST only, on /reports/*) saw each admitted report once.
            assertThat(probe.getInt("audited")).as("audited by the application's filter").isEqualTo(limit);
            assertThat(probe.getInt("auditedAsOther")).isZero();
        }
        await("every permit back").atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(probe().getInt("free." + batch.rule())).isEqualTo(limit));
        assertDecidedByRedis();
    }

    /**
     * The response's {@code X-RateLimit-Reset}: the seconds until the first post of the window frees, rounded up.
     * 3600 while that post is less than a second old; a slow machine may have taken longer since, so the value
     * is checked against the time the test measured, and the other headers against the value.
     */
    private static long resetSince(Response response, long firstSentNanos) {
        long reset = Long.parseLong(response.getHeader("X-RateLimit-Reset"));
        long elapsed = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - firstSentNanos) + 1;
        assertThat(reset).as("X-RateLimit-Reset").isBetween(3600 - elapsed, 3600L);
        return reset;
    }

    /** Headers as "name: value" lines, names in lower case: header names are case-insensitive. */
    private static List<String> lines(Map<String, String> headers) {
        return headers.entrySet().stream().map(e -> line(e.getKey(), e.getValue())).toList();
    }

    private static List<String> headerLines(Response response) {
        return response.getHeaders().asList().stream().map(h -> line(h.getName(), h.getValue())).toList();
    }

    private static String line(String name, String value) {
        return name.toLowerCase(Locale.ROOT) + ": " + value;
    }

    /** No decision fell back to on-backend-failure: every count above is Redis's. */
    void assertDecidedByRedis() {
        JsonPath probe = probe();
        assertThat(probe.getLong("failedOpen")).isZero();
        assertThat(probe.getLong("failedClosed")).isZero();
    }
}
