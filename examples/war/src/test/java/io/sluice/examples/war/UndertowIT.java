package io.sluice.examples.war;

import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Embedded Undertow 2.3 (Servlet 6.0) deploying the exploded WAR from its web.xml, in the test JVM. */
class UndertowIT extends WarContract {
    UndertowIT() {
        super(Container.UNDERTOW);
    }

    /**
     * What docs/servlet-containers.md says happens when the filter is declared without
     * {@code <async-supported>}: the container refuses {@code startAsync()} behind it, so async endpoints fail at once (500); synchronous ones still work,
     * and no permit is lost. (Tomcat and Jetty refuse the same way; seen by hand, not asserted for each.)
     */
    @Test
    void withoutAsyncSupportOnTheFilterAsyncRequestsFailAtOnceAndReturnTheirPermits() {
        Map<String, String> settings = Map.of("SLUICE_REDIS_ADDRESS", TestRedis.address(),
                "SLUICE_KEY_PREFIX", "war-no-async-" + UUID.randomUUID().toString().substring(0, 8));
        try (Deployed app = EmbeddedUndertow.deploy(StockContainers.property("it.exploded-war"), settings,
                xml -> xml.withFilterAsyncSupported("sluice", false))) {
            for (int i = 0; i < 5; i++) {
                given().get(app.baseUrl() + "/reports/async?seconds=60").then().statusCode(500);
            }
            given().get(app.baseUrl() + "/reports/sync?seconds=0").then().statusCode(200);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(given().get(app.baseUrl() + "/probe").jsonPath().getInt("free.reports")).isEqualTo(3));
        }
    }
}
