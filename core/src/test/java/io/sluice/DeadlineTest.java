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

    /**
     * A waiter whose deadline (timeout + wait) passes before the backend's own wait ends is not a backend
     * failure: with on-backend-failure=allow that would admit it without a permit. It gets one last try.
     */
    @Test
    void aWaitTheBackendEndsTooLateGetsOneLastTryNotTheFailurePolicy() {
        CountingBackend backend = new CountingBackend(java.time.Clock.systemUTC());
        backend.waitsNeverEnd.set(true);
        try (Sluice sluice = Sluice.builder().properties(Map.of("sluice.backend-timeout", "50ms",
                "sluice.rules.c.concurrency", "1", "sluice.rules.c.wait", "100ms")).backend(backend).build()) {
            var rule = sluice.rules().get("c").orElseThrow();
            // The permit is free: the last try takes it, and it is really held.
            Admission holder = sluice.admit(List.of(rule), KeySource.fixed("k")).toCompletableFuture().join();
            assertThat(holder.allowed()).isTrue();
            assertThat(holder.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED);
            assertThat(sluice.availablePermits(rule, "k").toCompletableFuture().join()).isZero();
            // The permit is taken: the last try says so, and the waiter is rejected, not let through.
            Admission waiter = sluice.admit(List.of(rule), KeySource.fixed("k")).toCompletableFuture().join();
            assertThat(waiter.allowed()).isFalse();
            assertThat(waiter.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.DECIDED);
            assertThat(sluice.stats().failedOpen()).isZero();
            // Both late waits answer after all with a permit: neither is held by anyone, so both go straight back.
            backend.pendingAcquires.get(0).complete(new LeaseOutcome("late-1", 0));
            backend.pendingAcquires.get(1).complete(new LeaseOutcome("late-2", 0));
            assertThat(backend.released).containsExactly("late-1", "late-2");
            holder.close();
            assertThat(sluice.availablePermits(rule, "k").toCompletableFuture().join()).isOne();
        }
    }

    @Test
    void aLastTryTheBackendCannotAnswerFollowsTheFailurePolicy() {
        CountingBackend backend = new CountingBackend(java.time.Clock.systemUTC());
        backend.waitsNeverEnd.set(true);
        try (Sluice sluice = Sluice.builder().properties(Map.of("sluice.backend-timeout", "50ms",
                "sluice.rules.c.concurrency", "1", "sluice.rules.c.wait", "100ms",
                "sluice.rules.c.on-backend-failure", "deny")).backend(backend).build()) {
            backend.down.set(true);
            Admission a = sluice.admit(List.of(sluice.rules().get("c").orElseThrow()), KeySource.fixed("k"))
                    .toCompletableFuture().join();
            assertThat(a.allowed()).isFalse();
            assertThat(a.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(sluice.stats().failedClosed()).isOne();
        }
    }
}
