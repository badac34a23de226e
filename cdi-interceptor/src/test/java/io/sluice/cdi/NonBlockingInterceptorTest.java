package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.rule.ConfigLoader;
import io.sluice.testing.CountingBackend;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Limited} method returning a {@link CompletionStage} while the backend has not answered: the caller
 * gets a pending stage at once (its thread never waits), the method runs only once admitted, and a rejection
 * completes the stage exceptionally. A synchronous method still waits for the answer.
 */
class NonBlockingInterceptorTest {

    @Test
    void aStageMethodReturnsAtOnceAndRunsWhenTheBackendAdmitsIt() throws Exception {
        System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
        HeldSluice.backend = new CountingBackend(Clock.systemUTC());
        try (WeldContainer container = CdiTesting.weld(HeldSluice.class, Generator.class).initialize()) {
            Generator generator = container.select(Generator.class).get();
            Generator.STARTED.set(0);
            HeldSluice.backend.hold();

            CompletableFuture<String> first = generator.generate().toCompletableFuture();
            CompletableFuture<String> second = generator.generate().toCompletableFuture();
            assertThat(first).as("returned before the backend answered").isNotDone();
            assertThat(second).isNotDone();
            assertThat(Generator.STARTED).as("no call runs before it is admitted").hasValue(0);

            HeldSluice.backend.open();
            // The held answers are released in no particular order: one call takes the only permit.
            CompletableFuture.allOf(first, second).handle((v, e) -> null).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<String>> calls = List.of(first, second);
            CompletableFuture<String> admitted = calls.stream().filter(c -> !c.isCompletedExceptionally()).findFirst().orElseThrow();
            CompletableFuture<String> rejected = calls.stream().filter(CompletableFuture::isCompletedExceptionally).findFirst().orElseThrow();
            assertThat(admitted.join()).isEqualTo("image");
            assertThat(LimitedInterceptorTest.rejection(() -> rejected).rule()).isEqualTo("images");
            assertThat(Generator.STARTED).as("the rejected call never ran").hasValue(1);
        }
    }

    @ApplicationScoped
    public static class HeldSluice {
        static CountingBackend backend;

        @Produces
        @Singleton
        @Alternative
        @Priority(100)
        Sluice sluice() {
            return Sluice.builder().properties(Map.of("sluice.rules.images.rate", "1/1h",
                    "sluice.rules.images.key", "global")).backend(backend).build();
        }

        void close(@Disposes Sluice sluice) {
            sluice.close();
        }
    }

    @ApplicationScoped
    public static class Generator {
        // Static: fields read through the client proxy are the proxy's own.
        static final AtomicInteger STARTED = new AtomicInteger();

        @Limited("images")
        public CompletionStage<String> generate() {
            STARTED.incrementAndGet();
            return CompletableFuture.completedFuture("image");
        }
    }
}
