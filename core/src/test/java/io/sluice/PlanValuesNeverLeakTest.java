package io.sluice;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.key.FakeRequest;
import io.sluice.key.RequestView;
import io.sluice.rule.Rule;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.CountingBackend;
import io.sluice.testing.ForwardingBackend;
import io.sluice.testing.LogRecorder;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plan value a client chose never reaches a log line, a meter tag or the backend: it is only compared with the
 * rule's plan names. Dry-run warnings and backend-failure warnings are logged here, and meters are published.
 */
class PlanValuesNeverLeakTest {
    private static final String HOSTILE = "evil-\r\nX-Injected: 1-プラン-" + "z".repeat(300);
    private static final RequestView HOSTILE_REQUEST =
            FakeRequest.from("127.0.0.1").header("X-Plan", HOSTILE).header("X-User", "alice");

    @Test
    void noLogLineMeterTagOrBackendKeyCarriesThePlanValue() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountingBackend counting = new CountingBackend(Clock.systemUTC());
        KeyRecording backend = new KeyRecording(counting);
        try (LogRecorder log = LogRecorder.on("io.sluice");
             Sluice s = Sluice.builder().properties(Map.of(
                        "sluice.rules.dry.rate", "1/1h", "sluice.rules.dry.mode", "dry-run",
                        "sluice.rules.dry.key", "header:X-User", "sluice.rules.dry.plan", "header:X-Plan",
                        "sluice.rules.dry.plans.pro.rate", "2/1h",
                        "sluice.rules.down.rate", "1/1h", "sluice.rules.down.on-backend-failure", "deny",
                        "sluice.rules.down.key", "header:X-User", "sluice.rules.down.plan", "header:X-Plan",
                        "sluice.rules.down.plans.pro.rate", "2/1h"))
                .backend(backend).meterRegistry(registry).build()) {
            List<Rule> dry = List.of(s.rules().get("dry").orElseThrow());
            for (int i = 0; i < 3; i++) s.admit(dry, s.keysOf(HOSTILE_REQUEST)).toCompletableFuture().join().close();
            counting.down.set(true);
            List<Rule> down = List.of(s.rules().get("down").orElseThrow());
            assertThat(s.admit(down, s.keysOf(HOSTILE_REQUEST)).toCompletableFuture().join().allowed()).isFalse();
            List<String> logged = log.records().stream().map(r -> r.getMessage() + " "
                    + List.of(r.getParameters() == null ? new Object[0] : r.getParameters())).toList();
            assertThat(logged).as("the dry-run and backend-failure warnings were logged").hasSizeGreaterThanOrEqualTo(2);
            assertThat(logged).noneSatisfy(line -> assertThat(line).containsAnyOf("evil", "Injected", "プラン", "zzzz"));
            List<String> tags = registry.getMeters().stream().map(Meter::getId)
                    .flatMap(id -> id.getTags().stream()).map(Tag::getValue).toList();
            assertThat(tags).isNotEmpty().noneSatisfy(v -> assertThat(v).containsAnyOf("evil", "Injected", "プラン", "zzzz"));
            assertThat(backend.keys).isNotEmpty().noneSatisfy(k -> assertThat(k).containsAnyOf("evil", "Injected", "プラン", "zzzz"));
        }
    }

    /** Records the key of every rate request, then asks the backend it wraps. */
    private static final class KeyRecording extends ForwardingBackend {
        final List<String> keys = new CopyOnWriteArrayList<>();

        KeyRecording(LimiterBackend backend) {
            super(backend);
        }

        @Override
        public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
            keys.add(request.key());
            return super.tryConsume(request);
        }

        @Override
        public CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
            for (RateRequest r : requests) keys.add(r.key());
            return super.tryConsumeAll(requests);
        }

        @Override
        public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
            keys.add(request.key());
            return super.tryAcquire(request);
        }
    }
}
