package io.sluice;

import io.sluice.spi.LeaseOutcome;
import io.sluice.testing.CountingBackend;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deadline of a decision is Sluice's own: a backend that never answers (whatever its client's settings) costs
 * a request {@code sluice.backend-timeout}, and a permit granted after Sluice gave up on it is returned at once.
 */
class DeadlineTest {
    @Test
    void aBackendThatNeverAnswersCostsTheDeadlineAndALatePermitIsReturned() {
        CountingBackend backend = new CountingBackend(java.time.Clock.systemUTC());
        backend.silent.set(true);
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
