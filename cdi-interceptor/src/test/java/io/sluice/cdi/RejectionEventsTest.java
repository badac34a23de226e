package io.sluice.cdi;

import io.sluice.DecisionEvent;
import io.sluice.LimitExceededException;
import io.sluice.key.KeyResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rejections reach the application's {@code @Observes} and {@code @ObservesAsync} methods (Weld, real Redis). */
class RejectionEventsTest {
    private static final long WAIT_SECONDS = 30;

    @Test
    void eachRejectionIsFiredOnceToSynchronousAndAsynchronousObservers() throws Exception {
        var rules = CdiTesting.rulesFile("sluice.rules.images.rate=2/1h", "sluice.rules.images.key=global");
        try (WeldContainer container = CdiTesting.boot(rules, Service.class, Audit.class)) {
            Service service = container.select(Service.class).get();
            service.generate();
            service.generate();
            assertThatThrownBy(service::generate).isInstanceOf(LimitExceededException.class);
            assertThatThrownBy(service::generate).isInstanceOf(LimitExceededException.class);

            for (BlockingQueue<DecisionEvent> heard : List.of(Audit.SYNC, Audit.ASYNC)) {
                for (int i = 0; i < 2; i++) {
                    DecisionEvent e = heard.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertThat(e).isNotNull();
                    assertThat(e.rule()).isEqualTo("images");
                    assertThat(e.result()).isEqualTo(DecisionEvent.Result.REJECTED);
                    assertThat(e.limit()).isEqualTo(2);
                    assertThat(e.keyHash()).isEqualTo(KeyResolver.hash(KeyResolver.GLOBAL));
                }
                // Admissions are not fired, and each rejection reaches each observer once.
                assertThat(heard.poll(200, TimeUnit.MILLISECONDS)).isNull();
            }
            assertThat(Audit.SYNC_THREADS).allMatch(name -> name.equals("sluice-decision-listeners"));
        }
    }

    @ApplicationScoped
    public static class Service {
        @Limited("images")
        public String generate() {
            return "image";
        }
    }

    @ApplicationScoped
    public static class Audit {
        // Static: a test reads them past the client proxy, whose own fields are not the bean's.
        static final BlockingQueue<DecisionEvent> SYNC = new LinkedBlockingQueue<>();
        static final BlockingQueue<DecisionEvent> ASYNC = new LinkedBlockingQueue<>();
        static final BlockingQueue<String> SYNC_THREADS = new LinkedBlockingQueue<>();

        void rejected(@Observes DecisionEvent event) {
            SYNC_THREADS.add(Thread.currentThread().getName());
            SYNC.add(event);
        }

        void rejectedLater(@ObservesAsync DecisionEvent event) {
            ASYNC.add(event);
        }
    }
}
