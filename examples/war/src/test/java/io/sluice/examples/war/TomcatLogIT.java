package io.sluice.examples.war;

import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sluice's warnings reach a stock Tomcat 11's own log, {@code logs/catalina.<date>.log}, with the example WAR
 * as built: no SLF4J provider in it, no logging configuration in it or in Tomcat. Sluice logs through
 * {@code System.Logger}, which Tomcat's JULI receives as {@code java.util.logging}; an SLF4J logger without a
 * provider would have printed one "No SLF4J providers" warning and dropped everything after. (Redisson, which
 * logs through SLF4J, still prints that warning on the console: its own lines need a provider.) The WAR's Redis is
 * a port nobody listens on, so the first limited request fails over to {@code on-backend-failure} and says so.
 */
class TomcatLogIT {
    private static final Pattern WARNING = Pattern.compile(
            "WARNING \\[[^\\]]+\\] io\\.sluice\\.engine\\.BackendGuard\\.failure Backend (failed|too slow) for rule 'posts' \\(\\w+\\); allowing per on-backend-failure");
    private static final String NAME = "tomcat-11-log";

    @Test
    void theBackendFailureWarningIsInCatalinaLog() {
        Map<String, String> settings = Map.of("SLUICE_REDIS_ADDRESS", "redis://127.0.0.1:" + TestRedis.freePort(),
                "SLUICE_KEY_PREFIX", "war-log");
        try (Deployed app = StockContainers.tomcat(NAME, StockContainers.property("it.tomcat11.home"), settings)) {
            given().header("X-User", "alice").post(app.baseUrl() + "/api/posts").then().statusCode(201);
            Path logs = StockContainers.property("it.work").resolve(NAME).resolve("logs");
            await("the warning in " + logs + "/catalina.*.log").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> WARNING.matcher(catalinaLog(logs)).find());
            assertThat(catalinaLog(logs)).as("Sluice's start-up line, at INFO, naming the filter's code")
                    .containsPattern("INFO \\[[^\\]]+\\] io\\.sluice\\.filter\\.SluiceFilter\\.init Sluice filter 'sluice' started with 3 rules");
        }
    }

    /** Tomcat's own log files (JULI's file handler), not its console. */
    private static String catalinaLog(Path logs) {
        try (Stream<Path> files = Files.list(logs)) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("catalina.")).sorted().toList()) {
                all.append(Files.readString(f));
            }
            return all.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
