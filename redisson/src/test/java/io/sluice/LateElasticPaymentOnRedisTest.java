package io.sluice;

import io.sluice.redisson.CallerClockBackend;
import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.ForwardingBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.sluice.CallerClockEngine.admit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 21: what a {@code sliding-log} capacity rule paid for an elastic request whose late answer is undone (the
 * failure policy denied the request meanwhile) goes back by the payment's own log entry, not the newest entry of that
 * cost, which may be a later request's. On a real Redis, time injected; the capacity call reaches Redis at once and
 * only its answer is held back past the deadline, as a slow network would.
 */
class LateElasticPaymentOnRedisTest {
    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(0);
    /** How far the clock moves at a time while a call waits for its deadline. */
    private static final long STEP_MILLIS = 100;

    /** The backend on Redis, holding back the capacity rule's answers while {@link #held} is set; its refunds kept. */
    private final class HoldingBack extends ForwardingBackend {
        volatile CompletableFuture<Void> held;
        final List<CompletionStage<Long>> refunds = new CopyOnWriteArrayList<>();

        HoldingBack() {
            super(CallerClockBackend.of(engines.redisson(), engines.clock()));
        }

        @Override
        public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
            CompletableFuture<Void> gate = held;
            CompletionStage<RateOutcome> answer = super.tryConsume(r);
            return gate == null || !r.key().contains("system") ? answer : answer.thenCombine(gate, (o, v) -> o);
        }

        @Override
        public CompletionStage<Long> refundCredited(RateRequest request, Entry entry) {
            CompletionStage<Long> refund = super.refundCredited(request, entry);
            refunds.add(refund);
            return refund;
        }
    }

    private Sluice sluice(HoldingBack backend) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", engines.prefix());
        p.put("sluice.backend-timeout", "100ms");
        p.put("sluice.rules.api.rate", "1/1h");
        p.put("sluice.rules.api.algorithm", "sliding-log");
        p.put("sluice.rules.api.throttling", "elastic");
        p.put("sluice.rules.api.capacity", "system");
        p.put("sluice.rules.api.on-backend-failure", "deny");
        p.put("sluice.rules.system.key", "global");
        p.put("sluice.rules.system.rate", "2/10s");
        p.put("sluice.rules.system.algorithm", "sliding-log");
        return Sluice.builder().properties(p).backend(backend).clock(engines.clock()).ticker(engines.clock()).build();
    }

    /**
     * The decision once the engine's deadlines (on the injected ticker) have failed its call: the clock moves on a
     * little at a time, each step given a moment of real time for the sweep that fails the call.
     */
    private Admission pastItsDeadline(CompletionStage<Admission> admission) {
        CompletableFuture<Admission> pending = admission.toCompletableFuture();
        while (!pending.isDone()) {
            engines.clock().advance(Duration.ofMillis(STEP_MILLIS));
            try {
                return pending.get(STEP_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException notYet) {
                // the next step
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
        return pending.join();
    }

    private void at(long millis, long start) {
        engines.clock().advance(Duration.ofMillis(start + millis - engines.clock().millis()));
    }

    /**
     * {@code api} 1/1h elastic (overage 100%), paid by {@code system} 2/10s, both logs. Alice and Bob each use their
     * nominal permit at 0 s. At 1 s Alice's second request borrows: the capacity log takes it (entry at 1 s), but the
     * answer comes after the deadline, and the failure policy has denied it. At 5 s Bob's second borrows (entry at 5
     * s), answered. Then Alice's late answer arrives and both its permits go back: the capacity's by its entry at 1 s.
     * At 11.5 s the log holds Bob's at 5 s alone: exactly 1 of {@code system}'s own requests is admitted. Given back as
     * the newest entry of that cost (Bob's), the log kept Alice's at 1 s, gone by 11 s: 2 admitted, Bob's payment
     * forgotten, 3 in 10 s of a limit of 2.
     */
    @Test
    void aLateElasticPaymentGoesBackByItsOwnEntry() {
        HoldingBack backend = new HoldingBack();
        long start = engines.clock().millis();
        try (Sluice s = sluice(backend)) {
            assertThat(admit(s, "api", "alice").allowed()).isTrue();
            assertThat(admit(s, "api", "bob").allowed()).isTrue();
            at(1_000, start);
            CompletableFuture<Void> gate = new CompletableFuture<>();
            backend.held = gate;
            Admission late = pastItsDeadline(s.admit(List.of(s.rules().get("api").orElseThrow()), KeySource.fixed("alice")));
            backend.held = null;
            assertThat(engines.clock().millis() - start).as("decided well before Bob's request").isLessThan(4_000);
            assertThat(late.allowed()).as("denied by the failure policy at its deadline").isFalse();
            at(5_000, start);
            assertThat(admit(s, "api", "bob").allowed()).as("borrowed, paid by the capacity rule").isTrue();
            gate.complete(null);
            await().atMost(Duration.ofSeconds(10)).until(() -> backend.refunds.size() == 2);
            for (CompletionStage<Long> r : backend.refunds) r.toCompletableFuture().join();
            at(11_500, start);
            int admitted = 0;
            for (int i = 0; i < 3; i++) if (admit(s, "system", "*").allowed()) admitted++;
            assertThat(admitted).as("Bob's payment at 5 s still counts").isEqualTo(1);
        }
    }
}
