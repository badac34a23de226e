package io.sluice.filter;

import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sluice's warnings reach the log of an embedded Jetty 12 in its own JVM, configured by nothing but the JDK's
 * defaults: Sluice logs through {@code System.Logger}, which the JDK hands to {@code java.util.logging}, whose
 * console handler writes {@code WARNING: ...} to the process's standard error. (slf4j-simple, also on this
 * classpath for Redisson's and Jetty's own logging, writes {@code WARN <logger> - ...} instead, so the format
 * tells which way the line came.) Redis is a port nobody listens on: the first decision fails and says so.
 */
class JettyLogIT {
    private static final Pattern JUL_WARNING =
            Pattern.compile("(?m)^WARNING: Backend (failed|too slow) for rule 'posts' \\(\\w+\\); denying per on-backend-failure$");

    @Test
    void theBackendFailureWarningIsInTheJettyProcessLog() throws Exception {
        Path dir = Files.createTempDirectory("sluice-jetty-log-");
        Path log = dir.resolve("server.log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                AppServerMain.class.getName(), dir.resolve("port").toString(),
                "config=classpath:sluice-many-servers.properties",
                "sluice.redis.address=redis://127.0.0.1:" + TestRedis.freePort(),
                "sluice.backend-timeout=300ms"));
        Process server = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Path portFile = dir.resolve("port");
            await("the Jetty process serving").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                    .failFast("the Jetty process exited", () -> !server.isAlive())
                    .until(() -> Files.exists(portFile));
            int port = Integer.parseInt(Files.readString(portFile).trim());

            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> denied = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/posts"))
                    .header("X-User", "alice").POST(HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(denied.statusCode()).as("on-backend-failure=deny").isNotEqualTo(200);

            await("the warning in the Jetty process's log").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> JUL_WARNING.matcher(Files.readString(log)).find());
            assertThat(Files.readString(log)).as("no SLF4J-only line for Sluice's logger")
                    .doesNotContain("WARN io.sluice.Sluice");
        } finally {
            server.destroyForcibly();
            server.waitFor(30, TimeUnit.SECONDS);
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
