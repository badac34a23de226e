package io.sluice.engine;

import io.sluice.testing.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A late call fails at its deadline when the store has answered nothing in time since it was made (down, frozen,
 * slower than the deadline), or has been silent for a whole limit since; while the store keeps answering, it waits
 * on, up to 10 times its limit and at most 1 s past its deadline. Time the sweeper did not see (a JVM short of
 * CPU) counts at most 20 ms a sweep, and an answer that has arrived is never failed.
 */
class DeadlinesTest {
    private static final Duration LIMIT = Duration.ofMillis(100);
    private static final long SWEEP_MILLIS = 10;
    private final ManualTicker ticker = new ManualTicker();
    private final Deadlines deadlines = new Deadlines(ticker);

    /** The engine's sweeper: every 10 ms (the last step shorter). */
    private void advanceAndSweep(long millis) {
        for (long left = millis; left > 0; left -= SWEEP_MILLIS) {
            ticker.advance(Duration.ofMillis(Math.min(SWEEP_MILLIS, left)));
            deadlines.sweep();
        }
    }

    /** A sweeper starved of CPU: one late sweep after {@code millis}. */
    private void lateSweepAfter(long millis) {
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
        old.complete("slow but answered"); // in time, then nothing more: the store has been silent for the limit
        advanceAndSweep(100);
        assertThat(timedOut(late)).isTrue();
    }

    /** Another call of the store, answered at once (in time). */
    private void siblingAnswered() {
        CompletableFuture<String> sibling = new CompletableFuture<>();
        deadlines.bound(sibling, LIMIT);
        sibling.complete("answered");
    }

    /** The sweeper runs every 10 ms for {@code millis} while the store answers another call every {@code every} ms. */
    private void advanceWhileAnswering(long millis, long every) {
        for (long t = SWEEP_MILLIS; t <= millis; t += SWEEP_MILLIS) {
            ticker.advance(Duration.ofMillis(SWEEP_MILLIS));
            if (t % every == 0) siblingAnswered();
            deadlines.sweep();
        }
    }

    @Test
    void whileTheStoreKeepsAnsweringALateCallWaitsOnBoundedly() {
        CompletableFuture<String> stuck = new CompletableFuture<>();
        CompletableFuture<String> late = deadlines.bound(stuck, LIMIT);
        advanceWhileAnswering(100, 50);
        assertThat(late).as("Redis is alive: only queued in this client").isNotDone();
        advanceWhileAnswering(800, 50);
        assertThat(late).isNotDone();
        stuck.complete("at last");
        assertThat(late.join()).isEqualTo("at last");

        CompletableFuture<String> never = deadlines.bound(new CompletableFuture<>(), LIMIT);
        advanceWhileAnswering(990, 30);
        assertThat(never).isNotDone();
        advanceAndSweep(10);
        assertThat(timedOut(never)).as("at most 10 x the limit").isTrue();
    }

    /** A store that answered after the call was made, then nothing for a whole limit: frozen since. */
    @Test
    void aStoreSilentForAWholeLimitIsNoLongerAlive() {
        CompletableFuture<String> late = deadlines.bound(new CompletableFuture<>(), LIMIT);
        advanceAndSweep(50);
        siblingAnswered();
        advanceAndSweep(99);
        assertThat(late).as("149 ms: 99 ms silent").isNotDone();
        advanceAndSweep(1);
        assertThat(timedOut(late)).as("150 ms: 100 ms silent").isTrue();
    }

    @Test
    void theLastCallOfABurstCountsItsSiblingsAnsweredAfterIt() {
        CompletableFuture<String> sibling = new CompletableFuture<>();
        deadlines.bound(sibling, LIMIT);
        advanceAndSweep(10);
        CompletableFuture<String> last = deadlines.bound(new CompletableFuture<>(), LIMIT);
        sibling.complete("answered");
        advanceWhileAnswering(100, 40);
        assertThat(last).isNotDone();
    }

    @Test
    void aLongLimitWaitsAtMostOneSecondMore() {
        Duration wait = Duration.ofSeconds(30);
        CompletableFuture<String> acquire = deadlines.bound(new CompletableFuture<>(), wait);
        advanceWhileAnswering(30_000 + 990, 500);
        assertThat(acquire).isNotDone();
        advanceAndSweep(10);
        assertThat(timedOut(acquire)).isTrue();
    }

    @Test
    void theHardBoundIsTenLimitsAndAtMostOneSecondMore() {
        assertThat(Deadlines.hardBound(LIMIT)).isEqualTo(Duration.ofSeconds(1));
        assertThat(Deadlines.hardBound(Duration.ofMillis(50))).isEqualTo(Duration.ofMillis(500));
        assertThat(Deadlines.hardBound(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(31));
        assertThat(Deadlines.clientTimeout(LIMIT)).as("past the hard bound").isEqualTo(Duration.ofMillis(1_200));
        assertThat(Deadlines.clientTimeout(Duration.ofSeconds(1))).as("half the limit past it").isEqualTo(Duration.ofMillis(2_500));
    }

    /** Issue 21: a sweep 200 ms late (the JVM had no CPU) found the call late, while its answer sat unread. */
    @Test
    void aLateSweepCountsOnlyTwentyMillisOfItsGap() {
        CompletableFuture<String> call = new CompletableFuture<>();
        CompletableFuture<String> bounded = deadlines.bound(call, LIMIT);
        lateSweepAfter(200);
        assertThat(bounded).as("20 ms counted of 200").isNotDone();
        call.complete("read at last");
        assertThat(bounded.join()).isEqualTo("read at last");

        // A store that answers nothing, swept late every time: 20 ms a sweep, so the 100 ms are counted by the 5th.
        CompletableFuture<String> frozen = deadlines.bound(new CompletableFuture<>(), LIMIT);
        for (int i = 0; i < 4; i++) {
            lateSweepAfter(100);
            assertThat(frozen).as("sweep %d", i + 1).isNotDone();
        }
        lateSweepAfter(100);
        assertThat(timedOut(frozen)).as("after 500 ms, within the hard bound").isTrue();
    }

    @Test
    void aBusyServerWaitsAtMostTheHardBound() {
        CompletableFuture<String> never = deadlines.bound(new CompletableFuture<>(), LIMIT);
        for (int i = 0; i < 9; i++) {
            siblingAnswered();
            lateSweepAfter(111);
        }
        assertThat(never).as("999 ms").isNotDone();
        lateSweepAfter(1);
        assertThat(timedOut(never)).as("1 000 ms: the hard bound").isTrue();
    }

    /** The sweep looks at the call before it fails it: an answer that arrived is the call's, even before it is handed on. */
    @Test
    void anAnswerThatHasArrivedIsNeverFailed() {
        BiConsumer<Object, Throwable>[] handOn = new BiConsumer[1];
        CompletableFuture<String> call = new CompletableFuture<>() {
            @Override
            public CompletableFuture<String> whenComplete(BiConsumer<? super String, ? super Throwable> action) {
                handOn[0] = (v, e) -> action.accept((String) v, e); // as an I/O thread about to run the callbacks
                return this;
            }
        };
        CompletableFuture<String> bounded = deadlines.bound(call, LIMIT);
        call.complete("arrived");
        advanceAndSweep(2_000);
        assertThat(bounded).isNotDone();
        handOn[0].accept("arrived", null);
        assertThat(bounded.join()).isEqualTo("arrived");
    }

    /** A lone call on a machine with no CPU to spare: its answer may be sent and unread; it waits up to the hard bound. */
    @Test
    void onASaturatedMachineALoneCallWaitsUpToTheHardBound() {
        boolean[] saturated = {true};
        Deadlines busy = new Deadlines(ticker, () -> saturated[0]);
        CompletableFuture<String> call = new CompletableFuture<>();
        CompletableFuture<String> bounded = busy.bound(call, LIMIT);
        CompletableFuture<String> never = busy.bound(new CompletableFuture<>(), LIMIT);
        for (int i = 0; i < 30; i++) {
            ticker.advance(Duration.ofMillis(SWEEP_MILLIS));
            busy.sweep();
        }
        assertThat(bounded).as("300 ms, nothing answered, CPU saturated").isNotDone();
        call.complete("sent long ago, read at last");
        assertThat(bounded.join()).isEqualTo("sent long ago, read at last");
        for (int i = 0; i < 69; i++) {
            ticker.advance(Duration.ofMillis(SWEEP_MILLIS));
            busy.sweep();
        }
        assertThat(never).as("990 ms").isNotDone();
        ticker.advance(Duration.ofMillis(SWEEP_MILLIS));
        busy.sweep();
        assertThat(timedOut(never)).as("the hard bound").isTrue();

        // CPU to spare again: a silent store costs the deadline.
        saturated[0] = false;
        CompletableFuture<String> idle = busy.bound(new CompletableFuture<>(), LIMIT);
        for (int i = 0; i < 10; i++) {
            ticker.advance(Duration.ofMillis(SWEEP_MILLIS));
            busy.sweep();
        }
        assertThat(timedOut(idle)).isTrue();
    }
}
