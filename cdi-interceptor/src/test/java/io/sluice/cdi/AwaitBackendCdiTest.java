package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.testing.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code sluice.await-backend} through the CDI producer (Weld): with Redis down, producing the shared Sluice
 * takes the wait, the engine says it is not connected, and {@code @Limited} calls follow
 * {@code on-backend-failure}.
 */
class AwaitBackendCdiTest {
    private static final Duration AWAIT = Duration.ofMillis(1500);

    @Test
    void theProducerWaitsThenServesByTheFailurePolicy() throws IOException {
        Path rules = Files.createTempFile("sluice-cdi-await", ".properties");
        rules.toFile().deleteOnExit();
        Files.writeString(rules, String.join("\n",
                "sluice.redis.address=redis://127.0.0.1:" + TestRedis.freePort(),
                "sluice.await-backend=1500ms",
                "sluice.backend-timeout=200ms",
                "sluice.on-backend-failure=deny",
                "sluice.rules.images.rate=5/1h",
                "sluice.rules.images.key=global", ""));
        long started = System.nanoTime();
        try (WeldContainer container = CdiTesting.boot(rules, Service.class)) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(AWAIT, AWAIT.plusSeconds(10));
            assertThat(container.select(Sluice.class).get().connected()).isFalse();
            assertThatThrownBy(container.select(Service.class).get()::generate)
                    .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo("images"));
        }
    }

    @ApplicationScoped
    public static class Service {
        @Limited("images")
        public String generate() {
            return "image";
        }
    }
}
