package io.sluice.filter;

import io.restassured.response.Response;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** With nothing listening where Redis should be, the application still deploys and each rule's failure policy decides. */
class RedisDownTest {

    private static Map<String, String> params(String onFailure) {
        return Map.of("config", "classpath:sluice-test.properties",
                "sluice.redis.address", "redis://127.0.0.1:" + TestRedis.freePort(),
                "sluice.backend-timeout", "200ms",
                "sluice.await-backend", "0s",
                "sluice.on-backend-failure", onFailure);
    }

    @Test
    void failOpenAdmitsWithoutHeadersAndWithinTheDeadline() {
        try (Containers.Running jetty = Containers.jetty(params("allow"))) {
            for (int i = 0; i < 7; i++) {
                long start = System.nanoTime();
                Response r = given().header("X-User", "bob").post("http://127.0.0.1:" + jetty.port() + "/api/posts");
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.getHeader("X-RateLimit-Limit")).isNull();
                assertThat(r.getHeader("RateLimit")).isNull();
                // The deadline is 200 ms; allow generous slack for a loaded CI machine, but not Redisson's 3 s defaults.
                assertThat(millis).isLessThan(2_000);
                System.out.println("redis-down fail-open request " + i + ": " + millis + " ms");
            }
            io.sluice.Stats stats = jetty.filter().sluice().stats();
            assertThat(stats.failedOpen()).isEqualTo(7);
            assertThat(stats.failedClosed()).isZero();
            // Every decision either tried Redis or was skipped by the open circuit; at least the first 5 tried.
            assertThat(stats.backendCalls() + stats.circuitOpenSkips()).isEqualTo(7);
            assertThat(stats.backendCalls()).isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void failClosedRejectsWithRetryAfterAndNoInternals() {
        try (Containers.Running tomcat = Containers.tomcat(params("deny"))) {
            Response r = given().header("X-User", "bob").post("http://127.0.0.1:" + tomcat.port() + "/api/posts");
            assertThat(r.statusCode()).isEqualTo(429);
            assertThat(r.getHeader("Retry-After")).isEqualTo("1");
            assertThat(r.getHeader("X-RateLimit-Limit")).isNull();
            assertThat(r.asString()).contains("\"violated-policies\":[\"posts\"]")
                    .doesNotContain("Exception").doesNotContain("Redis").doesNotContain("127.0.0.1");
        }
    }
}
