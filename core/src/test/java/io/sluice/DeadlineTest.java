package io.sluice;

import io.sluice.spi.LeaseOutcome;
import io.sluice.testing.CountingBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The deadline of a decision is Sluice's own: a backend that never answers (whatever its client's settings) costs
 * a request {@code sluice.backend-timeout}, and the permit Sluice gave up on is released under the id Sluice chose for
 * it, at once, before the backend answers (so also when the backend's call fails though the store granted it).
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
            // Sluice gave up on the permit: it released the id it had chosen for it, before Redis answered.
            String given = backend.pendingRequests.get(0).permitId();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(backend.released).containsExactly(given));
            // Redis grants it after all, too late: the release already undid it (a tombstone when it came first).
            backend.pendingAcquires.get(0).complete(new LeaseOutcome(given, 0));
            assertThat(backend.released).containsExactly(given);
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
            // Both waits were given up: the ids Sluice chose for them were released, whatever Redis does with them later.
            List<String> given = List.of(backend.pendingRequests.get(0).permitId(), backend.pendingRequests.get(1).permitId());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(backend.released).containsExactlyElementsOf(given));
            backend.pendingAcquires.get(0).complete(new LeaseOutcome(given.get(0), 0));
            backend.pendingAcquires.get(1).complete(new LeaseOutcome(given.get(1), 0));
            assertThat(backend.released).containsExactlyElementsOf(given);
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
