package io.sluice.filter;

import io.restassured.response.Response;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code on-backend-failure=local} over HTTP, with nothing listening where Redis should be (never connected since
 * start): each key gets this server's share of {@code posts} (5/1h over {@code sluice.local-share=2}: 2), then a 429
 * with the share's {@code Retry-After} and no rate headers (the share's numbers are not the key's).
 */
class LocalShareHttpTest {
    private static final Map<String, String> PARAMS = Map.of("config", "classpath:sluice-test.properties",
            "sluice.redis.address", "redis://127.0.0.1:" + TestRedis.freePort(),
            "sluice.backend-timeout", "200ms",
            "sluice.await-backend", "0s",
            "sluice.on-backend-failure", "local",
            "sluice.local-share", "2");

    @ParameterizedTest
    @EnumSource(Containers.Kind.class)
    void eachKeyGetsThisServersShareThenA429(Containers.Kind kind) {
        try (Containers.Running server = kind.start(PARAMS)) {
            String url = "http://127.0.0.1:" + server.port() + "/api/posts";
            List<Integer> bob = new ArrayList<>();
            Response rejected = null;
            for (int i = 0; i < 4; i++) {
                Response r = given().header("X-User", "bob").post(url);
                bob.add(r.statusCode());
                assertThat(r.getHeader("X-RateLimit-Limit")).isNull();
                assertThat(r.getHeader("RateLimit")).isNull();
                if (r.statusCode() == 429) rejected = r;
            }
            assertThat(bob).containsExactly(200, 200, 429, 429);
            long retryAfter = Long.parseLong(rejected.getHeader("Retry-After"));
            // The share's own window: the first of bob's permits frees an hour after it was taken.
            assertThat(retryAfter).isBetween(3_500L, 3_600L);
            assertThat(rejected.asString()).contains("\"violated-policies\":[\"posts\"]")
                    .doesNotContain("Exception").doesNotContain("127.0.0.1");
            assertThat(given().header("X-User", "alice").post(url).statusCode()).isEqualTo(200);
            assertThat(server.filter().sluice().stats().failedLocal()).isEqualTo(5);
            assertThat(server.filter().sluice().stats().failedOpen()).isZero();
        }
    }
}
