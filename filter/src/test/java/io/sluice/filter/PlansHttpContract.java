package io.sluice.filter;

import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.sluice.Decision;
import io.sluice.key.KeyResolver;
import io.sluice.testing.TestRedis;
import io.sluice.testing.TestRedissonClient;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Per-plan limits, problem types and the rejection hook through the filter, over real HTTP, real Redis and a real
 * container; run once per container. Two applications: one answers rejections with the default problem body, the
 * other with {@link UpgradeHandler}, named by the init-param {@code rejection-handler}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PlansHttpContract {
    private static final String PROBLEM_TYPE = "https://example.com/problems/rate-limited";
    /** Each rule's period in seconds (sluice-plans.properties). */
    private static final Map<String, Integer> WINDOWS = Map.of("api", 3600, "attr", 604_800, "query", 3600, "cookie", 604_800);
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();
    private final Containers.Kind kind;
    private Containers.Running server;
    private Containers.Running hooked;
    private String prefix;

    PlansHttpContract(Containers.Kind kind) {
        this.kind = kind;
    }

    private static Map<String, String> initParams(String prefix) {
        Map<String, String> params = new HashMap<>();
        params.put("config", "classpath:sluice-plans.properties");
        params.put("sluice.redis.address", TestRedis.address());
        params.put("sluice.key-prefix", prefix);
        return params;
    }

    /** The application's own filter before Sluice, which knows the caller's plan and says so in a request attribute. */
    public static final class PlanAttributeFilter implements Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            String plan = ((HttpServletRequest) request).getHeader("X-App-Plan");
            if (plan != null) request.setAttribute("example.plan", plan);
            chain.doFilter(request, response);
        }
    }

    /** A rejection of the application's own: 402 with an upgrade link, the decision's numbers as text. */
    public static final class UpgradeHandler implements RejectionHandler {
        @Override
        public void reject(Decision rejection, HttpServletRequest request, HttpServletResponse response) throws IOException {
            if (request.getHeader("X-Boom") != null) throw new IllegalStateException("the handler's own bug");
            if (request.getHeader("X-Default") != null) {
                RejectionHandler.problemJson().reject(rejection, request, response);
                return;
            }
            response.setStatus(402);
            response.setHeader("Link", "</pricing>; rel=\"payment\"");
            response.setContentType("text/plain;charset=UTF-8");
            response.getWriter().write("rule=" + rejection.ruleName() + " limit=" + rejection.limit()
                    + " remaining=" + rejection.remaining() + " retry-after=" + rejection.retryAfterSeconds()
                    + " status=" + rejection.rule().status() + " type=" + rejection.rule().problemType());
        }
    }

    @BeforeAll
    void start() {
        prefix = "p" + UUID.randomUUID().toString().substring(0, 8);
        Containers.Setup setup = Containers.Setup.before(new Containers.AppFilter("plan", new PlanAttributeFilter()));
        server = kind.start(initParams(prefix), setup);
        Map<String, String> hookParams = initParams(prefix + "h");
        hookParams.put("rejection-handler", UpgradeHandler.class.getName());
        hooked = kind.start(hookParams);
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
        if (hooked != null) hooked.close();
    }

    private String url(Containers.Running on, String path) {
        return "http://127.0.0.1:" + on.port() + path;
    }

    private static String user() {
        return "u-" + UUID.randomUUID();
    }

    /** Sends {@code count} requests, asserting each is admitted with the limit and remaining that count down. */
    private void admitsExactly(Containers.Running on, String path, String rule, int limit, int count,
                               UnaryOperator<RequestSpecification> request) {
        for (int i = 1; i <= count; i++) {
            Response r = request.apply(given()).post(url(on, path));
            assertThat(r.statusCode()).as(rule + " request " + i).isEqualTo(200);
            assertThat(r.getHeader("X-RateLimit-Limit")).isEqualTo(Integer.toString(limit));
            assertThat(r.getHeader("X-RateLimit-Remaining")).isEqualTo(Integer.toString(limit - i));
            assertThat(r.getHeader("RateLimit-Policy")).isEqualTo("\"" + rule + "\";q=" + limit + ";w=" + WINDOWS.get(rule));
        }
    }

    private Response rejected(Containers.Running on, String path, int limit, UnaryOperator<RequestSpecification> request) {
        Response r = request.apply(given()).post(url(on, path));
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.getHeader("X-RateLimit-Limit")).isEqualTo(Integer.toString(limit));
        assertThat(r.getHeader("X-RateLimit-Remaining")).isEqualTo("0");
        return r;
    }

    @Test
    void freeGetsThreeAnHourProTenFromAHeader() {
        String free = user();
        String pro = user();
        admitsExactly(server, "/plans/api", "api", 3, 3, r -> r.header("X-User", free));
        rejected(server, "/plans/api", 3, r -> r.header("X-User", free)).then()
                .contentType("application/problem+json")
                .body("type", equalTo(PROBLEM_TYPE))
                .body("title", equalTo("Too Many Requests"))
                .body("status", equalTo(429))
                .body("violated-policies", equalTo(List.of("api")));
        admitsExactly(server, "/plans/api", "api", 10, 10, r -> r.header("X-User", pro).header("X-Plan", "pro"));
        rejected(server, "/plans/api", 10, r -> r.header("X-User", pro).header("X-Plan", "pro"));
    }

    @Test
    void anUnlimitedPlanIsNeverLimitedAndAdvertisesNoRateHeaders() {
        String vip = user();
        for (int i = 0; i < 25; i++) {
            Response r = given().header("X-User", vip).header("X-Plan", "vip").post(url(server, "/plans/api"));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.getHeader("X-RateLimit-Limit")).isNull();
            assertThat(r.getHeader("RateLimit-Policy")).isNull();
        }
        assertThat(keysContaining(KeyResolver.hash(vip))).isEmpty();
    }

    @Test
    void aPlanFromARequestAttributeAndTheRulesOwnProblemType() {
        String free = user();
        String pro = user();
        admitsExactly(server, "/plans/attr", "attr", 10, 10, r -> r.header("X-User", pro).header("X-App-Plan", "pro"));
        rejected(server, "/plans/attr", 10, r -> r.header("X-User", pro).header("X-App-Plan", "pro"));
        // A client cannot choose the attribute's plan by sending a header of the same name.
        admitsExactly(server, "/plans/attr", "attr", 3, 3, r -> r.header("X-User", free).header("example.plan", "pro"));
        rejected(server, "/plans/attr", 3, r -> r.header("X-User", free)).then()
                .body("type", equalTo("urn:example:attr-quota"));
    }

    @Test
    void plansFromTheQueryStringAndFromACookie() {
        String a = user();
        String b = user();
        admitsExactly(server, "/plans/query?plan=pro", "query", 10, 10, r -> r.header("X-User", a));
        rejected(server, "/plans/query?plan=pro", 10, r -> r.header("X-User", a));
        admitsExactly(server, "/plans/cookie", "cookie", 10, 10, r -> r.header("X-User", b).cookie("plan", "pro"));
        rejected(server, "/plans/cookie", 10, r -> r.header("X-User", b).cookie("plan", "pro"));
        String c = user();
        admitsExactly(server, "/plans/cookie", "cookie", 3, 3, r -> r.header("X-User", c).cookie("plan", "gold"));
        rejected(server, "/plans/cookie", 3, r -> r.header("X-User", c).cookie("plan", "gold"));
    }

    @Test
    void unknownAndHostilePlanValuesGetTheRulesLimitsAndNeverReachRedis() {
        String huge = "pro" + "x".repeat(10_000);
        List<String> users = new ArrayList<>();
        for (String plan : List.of("enterprise", "PRO", huge)) {
            String u = user();
            users.add(u);
            admitsExactly(server, "/plans/api", "api", 3, 3, r -> r.header("X-User", u).header("X-Plan", plan));
            rejected(server, "/plans/api", 3, r -> r.header("X-User", u).header("X-Plan", plan));
        }
        // CR LF, a NUL and non-ASCII letters can only come percent-encoded, in the query string.
        for (String encoded : List.of("pro%0D%0AX-Plan:%20vip", "pro%00", "%E3%83%97%E3%83%AD", "pro%20")) {
            String u = user();
            users.add(u);
            String path = "/plans/query?plan=" + encoded;
            admitsExactly(server, path, "query", 3, 3, r -> r.header("X-User", u).urlEncodingEnabled(false));
            rejected(server, path, 3, r -> r.header("X-User", u).urlEncodingEnabled(false));
        }
        List<String> keys = keysContaining("");
        for (String u : users) {
            assertThat(keys).as("a counter for " + u).anySatisfy(k -> assertThat(k).contains(KeyResolver.hash(u)));
        }
        assertThat(keys).allSatisfy(k -> assertThat(k).doesNotContain("enterprise").doesNotContain("PRO")
                .doesNotContain("x".repeat(16)).doesNotContain("\r").doesNotContain("\n").doesNotContain("vip")
                .doesNotContain("プロ").doesNotContain("%"));
    }

    /** 2 of free's 3 used, then pro: 8 of pro's 10 left, one counter (token bucket rescales; the key omits the limit). */
    @Test
    void aKeyThatUpgradesKeepsItsUsage() {
        String u = user();
        admitsExactly(server, "/plans/api", "api", 3, 2, r -> r.header("X-User", u));
        for (int remaining = 7; remaining >= 0; remaining--) {
            Response r = given().header("X-User", u).header("X-Plan", "pro").post(url(server, "/plans/api"));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.getHeader("X-RateLimit-Limit")).isEqualTo("10");
            assertThat(r.getHeader("X-RateLimit-Remaining")).isEqualTo(Integer.toString(remaining));
        }
        rejected(server, "/plans/api", 10, r -> r.header("X-User", u).header("X-Plan", "pro"));
        rejected(server, "/plans/api", 3, r -> r.header("X-User", u));
        assertThat(keysContaining(KeyResolver.hash(u))).hasSize(1);
    }

    @Test
    void theRejectionHandlerSetsStatusHeadersAndBodyAndKeepsRetryAfter() {
        String u = user();
        admitsExactly(hooked, "/plans/api", "api", 3, 3, r -> r.header("X-User", u));
        Response r = given().header("X-User", u).post(url(hooked, "/plans/api"));
        assertThat(r.statusCode()).isEqualTo(402);
        assertThat(r.getHeader("Link")).isEqualTo("</pricing>; rel=\"payment\"");
        // The next token of 3/1h is 20 minutes after the first request (less the moments the requests took).
        String retryAfter = r.getHeader("Retry-After");
        assertThat(Long.parseLong(retryAfter)).isBetween(1100L, 1200L);
        assertThat(r.getHeader("X-RateLimit-Limit")).isEqualTo("3");
        assertThat(r.getHeader("X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(r.getHeader("RateLimit-Policy")).isEqualTo("\"api\";q=3;w=3600");
        assertThat(r.getContentType()).startsWith("text/plain");
        assertThat(new String(r.asByteArray(), StandardCharsets.UTF_8)).isEqualTo(
                "rule=api limit=3 remaining=0 retry-after=" + retryAfter + " status=429 type=" + PROBLEM_TYPE);
    }

    @Test
    void aHandlerMayLeaveARejectionToTheDefaultAndOneThatThrowsGetsTheProblemBody() {
        String u = user();
        admitsExactly(hooked, "/plans/api", "api", 3, 3, r -> r.header("X-User", u));
        for (String header : List.of("X-Default", "X-Boom")) {
            Response r = given().header("X-User", u).header(header, "1").post(url(hooked, "/plans/api"));
            assertThat(r.statusCode()).as(header).isEqualTo(429);
            assertThat(Long.parseLong(r.getHeader("Retry-After"))).isBetween(1100L, 1200L);
            assertThat(r.getHeader("X-RateLimit-Limit")).isEqualTo("3");
            r.then().contentType("application/problem+json").body("type", equalTo(PROBLEM_TYPE))
                    .body("violated-policies", equalTo(List.of("api")));
        }
    }

    @Test
    void aHandlerSetInCodeWinsAndSeesThePlansLimit() {
        SluiceFilter filter = hooked.filter();
        filter.setRejectionHandler((d, request, response) -> {
            response.setStatus(503);
            response.getOutputStream().write(("limit " + d.limit()).getBytes(StandardCharsets.US_ASCII));
        });
        try {
            String u = user();
            admitsExactly(hooked, "/plans/api", "api", 10, 10, r -> r.header("X-User", u).header("X-Plan", "pro"));
            Response r = given().header("X-User", u).header("X-Plan", "pro").post(url(hooked, "/plans/api"));
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.asString()).isEqualTo("limit 10");
            assertThat(r.getHeader("X-RateLimit-Limit")).isEqualTo("10");
        } finally {
            filter.setRejectionHandler(new UpgradeHandler());
        }
    }

    private List<String> keysContaining(String part) {
        List<String> keys = new ArrayList<>();
        redis.client().getKeys().getKeysByPattern(prefix + ":*").forEach(keys::add);
        // Redisson's own sub-keys of a sliding log start with the hash tag Sluice owns.
        redis.client().getKeys().getKeysByPattern("{" + prefix + ":*").forEach(keys::add);
        return keys.stream().filter(k -> k.contains(part)).toList();
    }
}
