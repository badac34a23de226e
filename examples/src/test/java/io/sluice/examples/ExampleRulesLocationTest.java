package io.sluice.examples;

import io.sluice.rule.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example app can be pointed at your own rules file: {@code -Dsluice.config} (else {@code SLUICE_CONFIG}) wins over
 * the example's own, which it used to name in a filter init-param that won over both.
 */
@Timeout(120)
class ExampleRulesLocationTest {
    @Test
    void theSystemPropertyThenTheEnvironmentVariableThenTheExamplesOwn() {
        Map<String, String> none = Map.of();
        Map<String, String> env = Map.of(ConfigLoader.ENVIRONMENT_VARIABLE, "file:/etc/env.properties");
        Map<String, String> prop = Map.of(ConfigLoader.SYSTEM_PROPERTY, " file:/etc/prop.properties ");
        assertThat(ExampleApp.rulesLocation(none::get, none::get)).isEqualTo("classpath:sluice-example.properties");
        assertThat(ExampleApp.rulesLocation(none::get, env::get)).isEqualTo("file:/etc/env.properties");
        assertThat(ExampleApp.rulesLocation(prop::get, env::get)).isEqualTo("file:/etc/prop.properties");
        assertThat(ExampleApp.rulesLocation(Map.of(ConfigLoader.SYSTEM_PROPERTY, " ")::get, env::get))
                .isEqualTo("file:/etc/env.properties");
    }

    @Test
    void aRulesFileNamedBySluiceConfigIsTheOneTheAppEnforces() throws Exception {
        Path rules = Files.createTempFile("my-rules", ".properties");
        Files.writeString(rules, "sluice.key-prefix=my-rules-" + System.nanoTime() + "\n"
                + "sluice.backend-timeout=5s\n"
                + "sluice.rules.mine.paths=/api/posts\n"
                + "sluice.rules.mine.methods=POST\n"
                + "sluice.rules.mine.key=header:X-User\n"
                + "sluice.rules.mine.rate=1/1h\n");
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, "file:" + rules);
        try (ExampleApp.Running app = ExampleApp.start(0, null, Duration.ofSeconds(1))) {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/api/posts"))
                    .header("X-User", "alice").timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build();
            HttpResponse<String> first = http.send(post, HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> second = http.send(post, HttpResponse.BodyHandlers.ofString());
            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"mine\";q=1;w=3600");
            assertThat(second.statusCode()).isEqualTo(429);
            assertThat(second.body()).contains("\"violated-policies\":[\"mine\"]");
        } finally {
            System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
            Files.deleteIfExists(rules);
        }
    }
}
