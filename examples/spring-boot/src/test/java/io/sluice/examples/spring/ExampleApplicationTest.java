package io.sluice.examples.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.Sluice;
import io.sluice.filter.SluiceFilter;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.json.JsonParser;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example application on a random port, over real HTTP, against a real Redis: the rules of
 * application.properties applied by the filter and by a service, answered with the filter's headers and body.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=health,sluice")
class ExampleApplicationTest {
    /** Spring Boot's own parser: the test reads JSON the same way on any Jackson. */
    private static final JsonParser JSON = JsonParserFactory.getJsonParser();
    /** Long enough that every concurrent request reaches the server while the first two still render. */
    private static final Duration HELD_REPORT = Duration.ofMillis(1500);

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private ApplicationContext context;
    @Autowired
    private Environment environment;
    @Autowired
    private Sluice sluice;
    @Autowired
    private FilterRegistrationBean<SluiceFilter> sluiceFilter;
    @Autowired
    private MeterRegistry meters;
    @Autowired
    private Reports reports;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        properties.add("sluice.redis.address", TestRedis::address);
        // Counters of earlier runs on a shared Redis (SLUICE_TEST_REDIS) stay apart.
        properties.add("sluice.key-prefix", () -> "example-" + UUID.randomUUID());
        // Exact counts need every decision made in Redis, on a loaded test machine too.
        properties.add("sluice.backend-timeout", () -> "5s");
    }

    @TestConfiguration
    static class Meters {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Test
    void fivePostsAMinuteThenA429WithRetryAfterTheRateLimitHeadersAndTheProblemBody() throws Exception {
        for (int i = 1; i <= 5; i++) {
            HttpResponse<String> ok = get("/api/posts");
            assertThat(ok.statusCode()).as("post " + i).isEqualTo(200);
            assertThat(header(ok, "X-RateLimit-Limit")).isEqualTo("5");
            assertThat(header(ok, "X-RateLimit-Remaining")).isEqualTo(Integer.toString(5 - i));
            assertThat(header(ok, "RateLimit-Policy")).isEqualTo("\"posts\";q=5;w=60");
            assertThat(header(ok, "RateLimit")).startsWith("\"posts\";r=" + (5 - i) + ";t=");
        }
        HttpResponse<String> rejected = get("/api/posts");

        assertThat(rejected.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(header(rejected, "Retry-After"));
        assertThat(retryAfter).isBetween(1L, 60L);
        assertThat(header(rejected, "X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(header(rejected, "RateLimit-Policy")).isEqualTo("\"posts\";q=5;w=60");
        assertThat(header(rejected, "RateLimit")).startsWith("\"posts\";r=0;t=");
        assertThat(header(rejected, "Content-Type")).startsWith("application/problem+json");
        assertThat(JSON.parseMap(rejected.body())).isEqualTo(JSON.parseMap(
                "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Request limit reached."
                        + " Retry after " + retryAfter + " second" + (retryAfter == 1 ? "" : "s") + ".\","
                        + "\"violated-policies\":[\"posts\"]}"));
        assertThat(count("posts", "allowed")).isEqualTo(5);
        assertThat(count("posts", "rejected")).isEqualTo(1);
    }

    @Test
    void notesCountPerSignedInUserBecauseSluiceRunsAfterSpringSecurity() throws Exception {
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> ok = get("/api/notes", "ada", "ada-password");
            assertThat(ok.statusCode()).as("note " + i).isEqualTo(200);
            assertThat(header(ok, "RateLimit")).startsWith("\"notes\";r=" + (3 - i) + ";t=");
        }
        HttpResponse<String> rejected = get("/api/notes", "ada", "ada-password");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(JSON.parseMap(rejected.body()).get("violated-policies")).isEqualTo(List.of("notes"));

        // Another user has a counter of their own; a request Spring Security refuses never reaches Sluice.
        assertThat(get("/api/notes", "grace", "grace-password").statusCode()).isEqualTo(200);
        HttpResponse<String> anonymous = get("/api/notes");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(header(anonymous, "RateLimit")).isNull();
        assertThat(count("notes", "allowed")).isEqualTo(4);
        assertThat(count("notes", "rejected")).isEqualTo(1);
    }

    @Test
    void twoReportsInFlightAtOnceTheOthersRejectedAtOnce() throws Exception {
        reports.renderFor(HELD_REPORT);
        try {
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < 5; i++) responses.add(http.sendAsync(request("/api/reports/r" + i).build(), HttpResponse.BodyHandlers.ofString()));
            List<HttpResponse<String>> done = responses.stream().map(CompletableFuture::join).toList();

            assertThat(done).filteredOn(r -> r.statusCode() == 200).hasSize(2);
            List<HttpResponse<String>> rejected = done.stream().filter(r -> r.statusCode() == 429).toList();
            assertThat(rejected).hasSize(3);
            for (HttpResponse<String> r : rejected) {
                assertThat(header(r, "Retry-After")).isNotNull();
                assertThat(header(r, "RateLimit-Policy")).isEqualTo("\"reports\";q=2;qu=\"concurrent-requests\"");
                assertThat(JSON.parseMap(r.body()).get("violated-policies")).isEqualTo(List.of("reports"));
            }
            assertThat(reports.peak()).isEqualTo(2);
        } finally {
            reports.renderFor(Reports.RENDERING);
        }
        // Every permit came back when its request ended.
        assertThat(get("/api/reports/after").statusCode()).isEqualTo(200);
    }

    @Test
    void aLimitExceededExceptionOfAServiceIsAnsweredAsTheFilterAnswers() throws Exception {
        assertThat(get("/api/exports?user=ada").statusCode()).isEqualTo(200);
        assertThat(get("/api/exports?user=ada").statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = get("/api/exports?user=ada");

        assertThat(rejected.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(header(rejected, "Retry-After"));
        assertThat(retryAfter).isBetween(1L, 60L);
        assertThat(header(rejected, "X-RateLimit-Limit")).isEqualTo("2");
        assertThat(header(rejected, "RateLimit-Policy")).isEqualTo("\"exports\";q=2;w=60");
        assertThat(header(rejected, "RateLimit")).startsWith("\"exports\";r=0;t=");
        assertThat(header(rejected, "Content-Type")).startsWith("application/problem+json");
        assertThat(JSON.parseMap(rejected.body())).isEqualTo(JSON.parseMap(
                "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Request limit reached."
                        + " Retry after " + retryAfter + " second" + (retryAfter == 1 ? "" : "s") + ".\","
                        + "\"violated-policies\":[\"exports\"]}"));
        // Another user has a counter of their own.
        assertThat(get("/api/exports?user=grace").statusCode()).isEqualTo(200);
    }

    @Test
    void theFilterAppliesTheApplicationsOneEngineAfterSpringSecurity() {
        assertThat(sluiceFilter.getFilter().sluice()).isSameAs(sluice);
        assertThat(sluiceFilter.getUrlPatterns()).containsExactly("/*");
        assertThat(sluiceFilter.getOrder()).isEqualTo(-99);
        assertThat(context.getBeansOfType(DelegatingFilterProxyRegistrationBean.class).values())
                .as("Spring Security's filter chain").singleElement()
                .satisfies(security -> assertThat(security.getOrder()).isLessThan(sluiceFilter.getOrder()));
        assertThat(sluice.rules().all()).extracting(r -> r.name()).containsExactly("exports", "notes", "posts", "reports");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theActuatorEndpointShowsTheRulesAndAKeysUsageAndResetsItForOperatorsOnly() throws Exception {
        assertThat(get("/actuator/sluice").statusCode()).as("anonymous").isEqualTo(401);
        assertThat(get("/actuator/sluice", "ada", "ada-password").statusCode()).as("without the role").isEqualTo(403);
        HttpResponse<String> response = get("/actuator/sluice", "ops", "ops-password");
        assertThat(response.statusCode()).isEqualTo(200);
        Map<String, Object> state = JSON.parseMap(response.body());
        assertThat(state.get("connected")).isEqualTo(true);
        List<Map<String, Object>> rules = (List<Map<String, Object>>) state.get("rules");
        assertThat(rules).extracting(r -> r.get("name")).containsExactly("exports", "notes", "posts", "reports");
        assertThat(rules.get(2)).containsEntry("rate", "5/1m").containsEntry("paths", List.of("/api/posts"))
                .containsEntry("key", "ip");

        HttpResponse<String> reports = get("/actuator/sluice/reports/*", "ops", "ops-password");
        assertThat(reports.statusCode()).isEqualTo(200);
        assertThat(JSON.parseMap(reports.body())).containsEntry("rule", "reports")
                .containsEntry("concurrency", Map.of("limit", 2, "inFlight", 0)).containsEntry("blockedSeconds", 0);

        // A user no other test exports for: two exports a minute through @Limited, looked up and reset.
        String usage = "/actuator/sluice/exports/linus";
        assertThat(rateOf(get(usage, "ops", "ops-password"))).containsEntry("limit", 2).containsEntry("remaining", 2)
                .containsEntry("resetSeconds", 0);
        assertThat(get("/api/exports?user=linus").statusCode()).isEqualTo(200);
        // Looking takes nothing: one export, one left, however often the usage is read.
        for (int i = 0; i < 3; i++) assertThat(rateOf(get(usage, "ops", "ops-password"))).containsEntry("remaining", 1);
        assertThat(get("/api/exports?user=linus").statusCode()).isEqualTo(200);
        assertThat(get("/api/exports?user=linus").statusCode()).isEqualTo(429);
        assertThat(delete(usage, "ada", "ada-password").statusCode()).as("without the role").isEqualTo(403);
        assertThat(delete(usage, "ops", "ops-password").statusCode()).isEqualTo(200);
        assertThat(rateOf(get(usage, "ops", "ops-password"))).containsEntry("remaining", 2);
        assertThat(get("/api/exports?user=linus").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/sluice/nothing/x", "ops", "ops-password").statusCode()).as("an unknown rule").isEqualTo(404);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> rateOf(HttpResponse<String> usage) {
        assertThat(usage.statusCode()).isEqualTo(200);
        return (Map<String, Object>) JSON.parseMap(usage.body()).get("rate");
    }

    private HttpResponse<String> delete(String path, String user, String password) throws Exception {
        String credentials = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return http.send(request(path).DELETE().header("Authorization", "Basic " + credentials).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private double count(String rule, String result) {
        return meters.get("sluice.requests").tag("rule", rule).tag("result", result).counter().count();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String user, String password) throws Exception {
        String credentials = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return http.send(request(path).header("Authorization", "Basic " + credentials).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + environment.getProperty("local.server.port") + path))
                .timeout(Duration.ofSeconds(30));
    }

    private static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }
}
