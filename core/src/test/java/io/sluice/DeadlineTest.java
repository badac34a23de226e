package io.sluice;

import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deadline of a decision is Sluice's own: a backend that never answers (whatever its client's settings) costs
 * a request {@code sluice.backend-timeout}, and a permit granted after Sluice gave up on it is returned at once.
 */
class DeadlineTest {
    /** Answers nothing until the test completes the pending futures by hand; records releases. */
    private static final class SilentBackend implements LimiterBackend {
        final List<CompletableFuture<LeaseOutcome>> pendingAcquires = new CopyOnWriteArrayList<>();
        final List<String> released = new CopyOnWriteArrayList<>();

        @Override
        public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
            return new CompletableFuture<>();
        }

        @Override
        public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
            CompletableFuture<LeaseOutcome> f = new CompletableFuture<>();
            pendingAcquires.add(f);
            return f;
        }

        @Override
        public CompletionStage<Boolean> renew(LeaseRequest request, String permitId) {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletionStage<Boolean> release(LeaseRequest request, String permitId) {
            released.add(permitId);
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletionStage<Integer> available(LeaseRequest request) {
            return CompletableFuture.completedFuture(0);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aBackendThatNeverAnswersCostsTheDeadlineAndALatePermitIsReturned() {
        SilentBackend backend = new SilentBackend();
        try (Sluice sluice = Sluice.builder().properties(Map.of("sluice.backend-timeout", "50ms",
                "sluice.rules.r.rate", "1/1m", "sluice.rules.c.concurrency", "1")).backend(backend).build()) {
            for (String rule : List.of("r", "c")) {
                long start = System.nanoTime();
                Admission a = sluice.admit(List.of(sluice.rules().get(rule).orElseThrow()), KeySource.fixed("k"))
                        .toCompletableFuture().join();
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertThat(a.allowed()).isTrue();
                assertThat(a.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
                assertThat(millis).as(rule + " decision ms").isBetween(45L, 2_000L);
                a.close();
            }
            assertThat(sluice.stats().failedOpen()).isEqualTo(2);
            // Redis grants the permit after all, too late: nobody holds it, so it goes straight back.
            backend.pendingAcquires.get(0).complete(new LeaseOutcome("late-permit", 0));
            assertThat(backend.released).containsExactly("late-permit");
        }
    }
}
