package io.sluice.internal;

import io.sluice.testing.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A late call fails at its deadline when the store answers nothing newer (down, frozen, slower than 1.5 times
 * the deadline); while the store answers calls made after it (or just before it, as the calls of a burst), it
 * waits on, up to 10 times its limit and at most 1 s past its deadline.
 */
class DeadlinesTest {
    private static final Duration LIMIT = Duration.ofMillis(100);
    private final ManualTicker ticker = new ManualTicker();
    private final Deadlines deadlines = new Deadlines(ticker);

    private void advanceAndSweep(long millis) {
        ticker.advance(Duration.ofMillis(millis));
        deadlines.sweep();
    }

    private static boolean timedOut(CompletableFuture<?> f) {
        return f.isCompletedExceptionally() && f.handle((v, e) -> e instanceof TimeoutException).join();
    }

    @Test
    void aStoreThatAnswersNothingCostsExactlyTheDeadline() {
        CompletableFuture<String> late = deadlines.bound(new CompletableFuture<>(), LIMIT);
        advanceAndSweep(99);
        assertThat(late).isNotDone();
        advanceAndSweep(1);
        assertThat(timedOut(late)).isTrue();
    }

    @Test
    void answersOfOlderCallsAreNoSignOfLife() {
        CompletableFuture<String> old = new CompletableFuture<>();
        deadlines.bound(old, LIMIT);
        advanceAndSweep(60);
        CompletableFuture<String> late = deadlines.bound(new CompletableFuture<>(), LIMIT);
        old.complete("slow but answered"); // made 60 ms before: a store 160 ms away, slower than 1.5 x the limit
        advanceAndSweep(100);
        assertThat(timedOut(late)).isTrue();
    }

    @Test
    void whileTheStoreAnswersNewerCallsALateCallWaitsOnBoundedly() {
        CompletableFuture<String> stuck = new CompletableFuture<>();
        CompletableFuture<String> late = deadlines.bound(stuck, LIMIT);
        advanceAndSweep(5);
        CompletableFuture<String> sibling = new CompletableFuture<>();
        deadlines.bound(sibling, LIMIT);
        sibling.complete("answered");
        advanceAndSweep(95);
        assertThat(late).as("Redis is alive: only queued in this client").isNotDone();
        advanceAndSweep(800);
        assertThat(late).isNotDone();
        stuck.complete("at last");
        assertThat(late.join()).isEqualTo("at last");

        CompletableFuture<String> never = deadlines.bound(new CompletableFuture<>(), LIMIT);
        CompletableFuture<String> newer = new CompletableFuture<>();
        deadlines.bound(newer, LIMIT);
        newer.complete("answered");
        advanceAndSweep(100 + 9 * 100 - 1);
        assertThat(never).isNotDone();
        advanceAndSweep(1);
        assertThat(timedOut(never)).as("at most 10 x the limit").isTrue();
    }

    @Test
    void theLastCallOfABurstCountsItsSiblingsMadeJustBefore() {
        CompletableFuture<String> sibling = new CompletableFuture<>();
        deadlines.bound(sibling, LIMIT);
        advanceAndSweep(10);
        CompletableFuture<String> last = deadlines.bound(new CompletableFuture<>(), LIMIT);
        sibling.complete("answered");
        advanceAndSweep(100);
        assertThat(last).isNotDone();
    }

    @Test
    void aLongLimitWaitsAtMostOneSecondMore() {
        Duration wait = Duration.ofSeconds(30);
        CompletableFuture<String> acquire = deadlines.bound(new CompletableFuture<>(), wait);
        CompletableFuture<String> newer = new CompletableFuture<>();
        deadlines.bound(newer, LIMIT);
        newer.complete("answered");
        advanceAndSweep(30_000 + 999);
        assertThat(acquire).isNotDone();
        advanceAndSweep(1);
        assertThat(timedOut(acquire)).isTrue();
    }
}
