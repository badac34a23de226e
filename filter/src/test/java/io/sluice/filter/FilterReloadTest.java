package io.sluice.filter;

import io.sluice.ConfigException;
import io.sluice.Sluice;
import io.sluice.testing.TestRedis;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Hot reload through the filter, over real HTTP on Jetty with a real Redis: the filter reads the rules of the
 * engine on every request, so a reloaded file (by {@code Sluice.reload()} or by {@code sluice.reload} polling it)
 * applies from the next request on, with the usage kept; a bad file changes nothing.
 */
class FilterReloadTest {
    @TempDir
    Path dir;

    private final String prefix = "filter-reload-" + UUID.randomUUID().toString().substring(0, 8);

    private void write(Path file, String... lines) throws IOException {
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        StringBuilder all = new StringBuilder();
        all.append("sluice.redis.address=").append(TestRedis.address()).append('\n');
        all.append("sluice.key-prefix=").append(prefix).append('\n');
        for (String l : lines) all.append(l).append('\n');
        Files.writeString(tmp, all, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void theNextRequestAfterAReloadIsDecidedUnderTheNewRulesWithTheUsageKept() throws IOException {
        Path file = dir.resolve("sluice.properties");
        write(file, "sluice.reload=200ms", "sluice.rules.posts.paths=/api/posts", "sluice.rules.posts.rate=3/1h",
                "sluice.rules.posts.key=header:X-User");
        try (Containers.Running jetty = Containers.jetty(Map.of("config", "file:" + file))) {
            String url = "http://127.0.0.1:" + jetty.port();
            for (int i = 0; i < 3; i++) given().header("X-User", "ann").post(url + "/api/posts").then().statusCode(200);
            given().header("X-User", "ann").post(url + "/api/posts").then().statusCode(429);
            given().get(url + "/open").then().statusCode(200);

            Sluice sluice = jetty.filter().sluice();
            write(file, "sluice.reload=200ms", "sluice.rules.posts.paths=/api/posts", "sluice.rules.posts.rate=5/1h",
                    "sluice.rules.posts.key=header:X-User", "sluice.rules.open.paths=/open", "sluice.rules.open.rate=1/1h",
                    "sluice.rules.open.key=global");
            // Either the poll got there first or this call does it: from here on the new rules decide.
            sluice.reload();
            assertThat(sluice.rules().get("open")).isPresent();
            Response fourth = given().header("X-User", "ann").post(url + "/api/posts");
            assertThat(fourth.statusCode()).as("3 used of 5").isEqualTo(200);
            assertThat(fourth.getHeader("X-RateLimit-Limit")).isEqualTo("5");
            assertThat(fourth.getHeader("X-RateLimit-Remaining")).isEqualTo("1");
            given().header("X-User", "ann").post(url + "/api/posts").then().statusCode(200).header("X-RateLimit-Remaining", "0");
            given().header("X-User", "ann").post(url + "/api/posts").then().statusCode(429);
            given().get(url + "/open").then().statusCode(200);
            given().get(url + "/open").then().statusCode(429);

            // A bad file: refused, the rules of the last good one keep serving.
            write(file, "sluice.reload=200ms", "sluice.rules.posts.paths=/api/posts", "sluice.rules.posts.rate=many");
            assertThatThrownBy(sluice::reload).isInstanceOf(ConfigException.class).hasMessageContaining("sluice.rules.posts.rate");
            given().header("X-User", "bob").post(url + "/api/posts").then().statusCode(200).header("X-RateLimit-Limit", "5");

            // Polled: no call at all, the engine's thread finds the change.
            write(file, "sluice.reload=200ms", "sluice.rules.posts.paths=/api/posts", "sluice.rules.posts.rate=7/1h",
                    "sluice.rules.posts.key=header:X-User");
            await().atMost(Duration.ofSeconds(10)).until(() -> sluice.rules().get("open").isEmpty());
            given().header("X-User", "ann").post(url + "/api/posts").then().statusCode(200)
                    .header("X-RateLimit-Limit", "7").header("X-RateLimit-Remaining", "1");
            given().get(url + "/open").then().statusCode(200);
            given().get(url + "/open").then().statusCode(200);
        }
    }
}
