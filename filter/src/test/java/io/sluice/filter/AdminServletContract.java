package io.sluice.filter;

import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.sluice.testing.TestRedis;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin servlet in a real container over HTTP, secured as docs/operations.md shows: a security constraint on its
 * mapping for the role {@code sluice-admin}, BASIC authentication, users in the container's realm (user {@code ops}
 * with the role, {@code dev} without). 401 without
 * credentials, 403 for a user without the role, 200 with it; an override set and cleared over HTTP changes what the
 * filter admits; hostile and bad input is a 400 (or 404, 405) with a clear message, never a 500.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdminServletContract {
    static final String ROLE = "sluice-admin";
    static final String ADMIN_PATH = "/admin/sluice/*";
    private int port;

    /** A container with the filter on {@code /*} (these init-params), the admin servlet and the API, secured; its port. */
    abstract int start(Map<String, String> filterParams) throws Exception;

    abstract void stop() throws Exception;

    @BeforeAll
    void startContainer() throws Exception {
        port = start(Map.of("config", "classpath:sluice-admin.properties", "sluice.redis.address", TestRedis.address(),
                "sluice.key-prefix", "admin-" + UUID.randomUUID().toString().substring(0, 8)));
    }

    @AfterAll
    void stopContainer() throws Exception {
        stop();
    }

    /** The application's API: 200 for every GET. */
    static final class Api extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            resp.setStatus(200);
        }
    }

    private RequestSpecification anonymous() {
        return RestAssured.given().port(port).baseUri("http://127.0.0.1");
    }

    private RequestSpecification ops() {
        return anonymous().auth().preemptive().basic("ops", "ops-secret");
    }

    private Response api(String user) {
        return anonymous().header("X-User", user).get("/api/item");
    }

    @Test
    void withoutCredentials401WithoutTheRole403WithIt200() {
        Response none = anonymous().get("/admin/sluice/rules");
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.header("WWW-Authenticate")).startsWith("Basic");
        assertThat(anonymous().auth().preemptive().basic("dev", "dev-secret").get("/admin/sluice/rules").statusCode()).isEqualTo(403);
        assertThat(anonymous().auth().preemptive().basic("ops", "wrong").get("/admin/sluice/rules").statusCode()).isEqualTo(401);
        assertThat(anonymous().auth().preemptive().basic("dev", "dev-secret")
                .formParam("rule", "api").formParam("key", "x").formParam("limit", "unlimited").formParam("ttl", "1d")
                .post("/admin/sluice/override").statusCode()).isEqualTo(403);
        Response rules = ops().get("/admin/sluice/rules");
        assertThat(rules.statusCode()).isEqualTo(200);
        assertThat(rules.contentType()).startsWith("application/json");
        assertThat(rules.asString()).isEqualTo("{\"rules\":["
                + "{\"name\":\"api\",\"rate\":\"10/1h\",\"algorithm\":\"sliding-log\",\"throttling\":\"hard\",\"key\":\"header:X-User\","
                + "\"mode\":\"enforce\",\"paths\":[\"/api/*\"],\"plan\":\"header:X-Plan\",\"plans\":{\"pro\":{\"rate\":\"20/1h\"}}},"
                + "{\"name\":\"jobs\",\"concurrency\":2,\"lease\":\"30s\",\"wait\":\"0ms\",\"key\":\"user\",\"mode\":\"enforce\",\"paths\":[]}]}");
    }

    @Test
    void anOverrideSetAndClearedOverHttpChangesWhatTheFilterAdmits() {
        String alice = "alice-" + UUID.randomUUID();
        for (int i = 0; i < 8; i++) assertThat(api(alice).statusCode()).isEqualTo(200);
        Response set = ops().formParam("rule", "api").formParam("key", alice).formParam("limit", "7500/1h")
                .formParam("ttl", "7d").post("/admin/sluice/override");
        assertThat(set.statusCode()).isEqualTo(200);
        assertThat(set.asString()).isEqualTo("{\"rule\":\"api\",\"limit\":\"7500/1h\",\"ttl\":\"7d\"}").doesNotContain(alice);
        Response raised = api(alice);
        assertThat(raised.statusCode()).isEqualTo(200);
        assertThat(raised.header("X-RateLimit-Limit")).isEqualTo("7500");
        assertThat(raised.header("X-RateLimit-Remaining")).isEqualTo("7491");
        // Cleared: back to the rule's 10, with the key's 9 used.
        Response cleared = ops().queryParam("rule", "api").queryParam("key", alice).delete("/admin/sluice/override");
        assertThat(cleared.statusCode()).isEqualTo(200);
        assertThat(cleared.asString()).isEqualTo("{\"rule\":\"api\",\"cleared\":true}");
        assertThat(ops().queryParam("rule", "api").queryParam("key", alice).delete("/admin/sluice/override").asString())
                .isEqualTo("{\"rule\":\"api\",\"cleared\":false}");
        Response last = api(alice);
        assertThat(last.statusCode()).isEqualTo(200);
        assertThat(last.header("X-RateLimit-Limit")).isEqualTo("10");
        assertThat(last.header("X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(api(alice).statusCode()).isEqualTo(429);
    }

    @Test
    void badAndHostileInputIsA400WithItsReasonNeverA500() {
        assertBad(ops().formParam("rule", "api").formParam("key", "k".repeat(20_000)).formParam("limit", "1/1h").formParam("ttl", "1h"),
                "{\"error\":\"key = (20000 characters): expected at most 8192\"}");
        assertBad(ops().formParam("rule", "api").formParam("key", "bob").formParam("limit", "ten/h").formParam("ttl", "1h"),
                "{\"error\":\"override of sluice.rules.api.rate = \\\"ten/h\\\": expected unlimited or a rate over the rule's "
                        + "period 1h such as 100/1h (a plan changes how many, not the window, so a key keeps its usage when its plan "
                        + "changes; permits from 1 to 1000000000, a period from 1ms to 366d)\"}");
        assertBad(ops().formParam("rule", "jobs").formParam("key", "bob").formParam("limit", "5/1h").formParam("ttl", "1h"),
                "{\"error\":\"override of sluice.rules.jobs.rate = \\\"5/1h\\\": expected a concurrency number such as 8, or "
                        + "unlimited: rule jobs limits concurrency only\"}");
        assertBad(ops().formParam("rule", "<script>").formParam("key", "bob").formParam("limit", "5/1h").formParam("ttl", "1h"),
                "{\"error\":\"override of rule \\\"(not a rule name)\\\": no such rule; expected one of [api, jobs]\"}");
        assertBad(ops().formParam("rule", "nope").formParam("key", "bob").formParam("limit", "5/1h").formParam("ttl", "1h"),
                "{\"error\":\"override of rule \\\"nope\\\": no such rule; expected one of [api, jobs]\"}");
        assertBad(ops().formParam("rule", "api").formParam("key", "bob").formParam("limit", "5/1h"),
                "{\"error\":\"ttl = (missing): expected the parameter ttl in the query string or a form body\"}");
        assertBad(ops().formParam("rule", "api").formParam("key", "bob").formParam("limit", "5/1h").formParam("ttl", "soon\"\r\n<"),
                "{\"error\":\"ttl = \\\"soon\\\"\\r\\n\\u003c\\\": expected a duration such as 7d, 12h or PT30M\"}");
        assertBad(ops().formParam("rule", "api").formParam("key", "bob").formParam("limit", "5/1h").formParam("ttl", "400d"),
                "{\"error\":\"override ttl = \\\"400d\\\": expected a duration from 1s to 366d\"}");
        // A JSON body is not how parameters come: every one is missing.
        Response json = ops().contentType("application/json").body("{\"rule\":\"api\",").post("/admin/sluice/override");
        assertThat(json.statusCode()).isEqualTo(400);
        assertThat(json.asString()).isEqualTo("{\"error\":\"rule = (missing): expected the parameter rule in the query string or a form body\"}");
        assertBad(ops().queryParam("rule", "api"), "DELETE",
                "{\"error\":\"key = (missing): expected the parameter key in the query string or a form body\"}");

        Response wrongMethod = ops().get("/admin/sluice/override");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(wrongMethod.header("Allow")).isEqualTo("POST, DELETE");
        assertThat(ops().get("/admin/sluice/nope").statusCode()).isEqualTo(404);
        assertThat(ops().get("/admin/sluice").statusCode()).isEqualTo(404);
        assertThat(ops().queryParam("rule", "nope").queryParam("key", "bob").get("/admin/sluice/usage").statusCode()).isEqualTo(400);
        assertThat(ops().formParam("rule", "api").post("/admin/sluice/reset").asString())
                .isEqualTo("{\"error\":\"key = (missing): expected the parameter key in the query string or a form body\"}");
        assertThat(ops().post("/admin/sluice/usage").statusCode()).isEqualTo(405);
    }

    @Test
    void oneKeysUsageAndItsResetOverHttp() {
        String bob = "bob-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) assertThat(api(bob).statusCode()).isEqualTo(200);
        Response usage = ops().queryParam("rule", "api").queryParam("key", bob).get("/admin/sluice/usage");
        assertThat(usage.statusCode()).isEqualTo(200);
        assertThat(usage.asString()).matches("\\{\"rule\":\"api\",\"rate\":\\{\"limit\":10,\"remaining\":7,\"resetMillis\":\\d+},"
                + "\"blockedMillis\":0}").doesNotContain(bob);
        Response reset = ops().formParam("rule", "api").formParam("key", bob).post("/admin/sluice/reset");
        assertThat(reset.statusCode()).isEqualTo(200);
        assertThat(reset.asString()).isEqualTo("{\"rule\":\"api\",\"reset\":true}");
        assertThat(ops().queryParam("rule", "api").queryParam("key", bob).get("/admin/sluice/usage").asString())
                .matches("\\{\"rule\":\"api\",\"rate\":\\{\"limit\":10,\"remaining\":10,\"resetMillis\":\\d+},\"blockedMillis\":0}");
        assertThat(ops().queryParam("rule", "jobs").queryParam("key", bob).get("/admin/sluice/usage").asString())
                .isEqualTo("{\"rule\":\"jobs\",\"concurrency\":{\"limit\":2,\"inFlight\":0},\"blockedMillis\":0}");
    }

    private static void assertBad(RequestSpecification request, String body) {
        assertBad(request, "POST", body);
    }

    private static void assertBad(RequestSpecification request, String method, String body) {
        Response r = method.equals("POST") ? request.post("/admin/sluice/override") : request.delete("/admin/sluice/override");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.contentType()).startsWith("application/json");
        assertThat(r.asString()).isEqualTo(body);
    }
}
