package io.sluice;

import io.sluice.rule.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;


import static io.sluice.CallerClockEngine.admitSettled;
import static io.sluice.CallerClockEngine.remaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's late give-back of a window counter, through the whole engine on a real Redis, time injected: permits given
 * back when a request ends (its rule's {@code count} does not count how it ended) come off the counter of the window
 * that counted the request, never off a later window's, which never counted it and would then admit one more than the
 * limit. Windows of 10 s, aligned to the hour the clock starts in.
 */
class LateWindowRefundOnRedisTest {
    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(0);

    private Sluice sluice(String... props) {
        return engines.build(props);
    }

    /** {@code n} requests in a row: the Remaining of each admitted one, then -1 for each rejected one. */
    private static long[] burst(Sluice s, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            Admission a = admitSettled(s, "login", "alice");
            out[i] = a.allowed() ? remaining(a) : -1;
        }
        return out;
    }

    /**
     * fixed-window 3/10s counting failures only: A at 9 s (window 0), B at 10 s (window 1), then A's success gives its
     * permit back. Window 0 is over: nothing comes off window 1, which admits exactly 2 more (Remaining 1, then 0).
     * Taken off window 1's counter, it would admit 3 more: 4 in one window of 3.
     */
    @Test
    void aFixedWindowsGiveBackAfterItsWindowFreesNothingInTheNext() {
        try (Sluice s = sluice("sluice.rules.login.rate", "3/10s", "sluice.rules.login.algorithm", "fixed-window",
                "sluice.rules.login.count", "failure")) {
            engines.at(9_000, s);
            Admission a = admitSettled(s, "login", "alice");
            assertThat(remaining(a)).isEqualTo(2);
            engines.at(10_000, s);
            Admission b = admitSettled(s, "login", "alice");
            assertThat(remaining(b)).isEqualTo(2);
            a.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(burst(s, 3)).as("window 1 counted B alone; A's give-back is not its").containsExactly(1, 0, -1);
        }
    }

    /**
     * fixed-window 3/10s: a give-back within the request's own window still frees its permit (A at 11 s, its success
     * given back at 12 s: 3 more admitted).
     */
    @Test
    void aFixedWindowsGiveBackWithinItsWindowFreesItsPermit() {
        try (Sluice s = sluice("sluice.rules.login.rate", "3/10s", "sluice.rules.login.algorithm", "fixed-window",
                "sluice.rules.login.count", "failure")) {
            engines.at(11_000, s);
            Admission a = admitSettled(s, "login", "alice");
            assertThat(remaining(a)).isEqualTo(2);
            engines.at(12_000, s);
            a.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(burst(s, 4)).containsExactly(2, 1, 0, -1);
        }
    }

    /**
     * sliding-window 3/10s counting failures only: A at 15 s (window 1), B at 20 s (window 2, window 1 weighing in
     * whole), then A's success gives its permit back: off window 1's counter, which still weighs in. C and D are
     * admitted at 20 s (Remaining 1, 0). At 30 s window 2 (B, C, D: 3) is the previous window at full weight: rejected.
     * Taken off window 2's counter, A's give-back would have left B, C and D counted as 2, and a 4th admitted at 30 s.
     */
    @Test
    void aSlidingWindowsGiveBackComesOffThePreviousWindowItWasCountedIn() {
        try (Sluice s = sluice("sluice.rules.login.rate", "3/10s", "sluice.rules.login.algorithm", "sliding-window",
                "sluice.rules.login.count", "failure")) {
            engines.at(15_000, s);
            Admission a = admitSettled(s, "login", "alice");
            assertThat(remaining(a)).isEqualTo(2);
            engines.at(20_000, s);
            Admission b = admitSettled(s, "login", "alice");
            assertThat(remaining(b)).as("A weighs in whole at the window's start").isEqualTo(1);
            a.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(burst(s, 3)).containsExactly(1, 0, -1);
            engines.at(30_000, s);
            Admission late = admitSettled(s, "login", "alice");
            assertThat(late.allowed()).as("B, C and D of the window before, at full weight").isFalse();
            assertThat(remaining(late)).isZero();
        }
    }

    /**
     * sliding-window 3/10s: a give-back two windows later (A at 5 s, its success at 20 s) comes off nothing: window 0 no
     * longer weighs in, and window 2's counter (B at 20 s) is not A's.
     */
    @Test
    void aSlidingWindowsGiveBackTwoWindowsLateFreesNothing() {
        try (Sluice s = sluice("sluice.rules.login.rate", "3/10s", "sluice.rules.login.algorithm", "sliding-window",
                "sluice.rules.login.count", "failure")) {
            engines.at(5_000, s);
            Admission a = admitSettled(s, "login", "alice");
            engines.at(20_000, s);
            Admission b = admitSettled(s, "login", "alice");
            assertThat(remaining(b)).isEqualTo(2);
            a.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(burst(s, 3)).containsExactly(1, 0, -1);
        }
    }

    /**
     * fixed-window 4/10s with prefetch=2, counting failures only: A at 9 s is decided in Redis (window 0) and a stock of
     * 2 taken beside it, which ends with window 0. At 10 s B is decided in Redis with a new stock (window 1), C paid
     * from it; then A's success gives its permit back. The new stock has room for it, but it is window 1's: A's permit
     * goes to window 0, which is over, and window 1 admits exactly 2 more (4 in all: B, C, D from the stock and E from
     * Redis), each Remaining as without prefetch (1, then 0: the key's count got nothing back).
     */
    @Test
    void aPrefetchedStockOfALaterWindowTakesNoGiveBackOfAnEarlierOne() {
        try (Sluice s = sluice("sluice.rules.login.rate", "4/10s", "sluice.rules.login.algorithm", "fixed-window",
                "sluice.rules.login.prefetch", "2", "sluice.rules.login.count", "failure")) {
            engines.at(9_000, s);
            Admission a = admitSettled(s, "login", "alice");
            assertThat(remaining(a)).isEqualTo(3);
            engines.at(10_000, s);
            Admission b = admitSettled(s, "login", "alice");
            assertThat(remaining(b)).isEqualTo(3);
            Admission c = admitSettled(s, "login", "alice");
            assertThat(remaining(c)).isEqualTo(2);
            a.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(burst(s, 3)).as("B and C counted in window 1; A's give-back is window 0's").containsExactly(1, 0, -1);
        }
    }

    /**
     * fixed-window 4/10s with prefetch=2, counting failures only: X at 9 s is decided in Redis (window 0) with a stock of
     * 2, which pays P at 9.5 s. At 10 s the stock is handed back (its window over: 1 unused, off window 0), Q is decided
     * in Redis with a stock of window 1, which pays R; then P's success gives P's permit back. It was counted in window
     * 0, with P's stock: it goes off window 0 (over, so nothing), not into window 1's stock, which has room for it. Window
     * 1 admits exactly 2 more (Q, R, then 2: 4). Before, the stock-paid permit went into the stock in use: 3 more, 5 in
     * a window of 4.
     */
    @Test
    void aStockPaidPermitGoesBackByTheWindowOfItsStock() {
        try (Sluice s = sluice("sluice.rules.login.rate", "4/10s", "sluice.rules.login.algorithm", "fixed-window",
                "sluice.rules.login.prefetch", "2", "sluice.rules.login.count", "failure")) {
            engines.at(9_000, s);
            assertThat(remaining(admitSettled(s, "login", "alice"))).isEqualTo(3);
            engines.at(9_500, s);
            Admission p = admitSettled(s, "login", "alice");
            assertThat(remaining(p)).as("paid from the stock").isEqualTo(2);
            engines.at(10_000, s);
            assertThat(remaining(admitSettled(s, "login", "alice"))).isEqualTo(3);
            assertThat(remaining(admitSettled(s, "login", "alice"))).isEqualTo(2);
            p.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(burst(s, 3)).as("Q and R counted in window 1; P's give-back is window 0's").containsExactly(1, 0, -1);
        }
    }

    /**
     * fixed-window 4/10s with prefetch=2 and a hold of 1 s, counting failures only, all in window 1: X at 11 s with a
     * stock of 2, which pays P at 11.5 s; at 12 s the stock's hold ends and it hands back its 1 unused; then P's success
     * gives P's permit back, off window 1 in Redis. Counted once each, window 1 has X alone: 3 more admitted. Were the
     * used permit given back twice (into the stock and by its window), 4 would be.
     */
    @Test
    void aStockPaidPermitGivenBackAfterItsStockIsBackCountsOnce() {
        try (Sluice s = sluice("sluice.rules.login.rate", "4/10s", "sluice.rules.login.algorithm", "fixed-window",
                "sluice.rules.login.prefetch", "2", "sluice.rules.login.prefetch-hold", "1s", "sluice.rules.login.count", "failure")) {
            engines.at(11_000, s);
            assertThat(remaining(admitSettled(s, "login", "alice"))).isEqualTo(3);
            engines.at(11_500, s);
            Admission p = admitSettled(s, "login", "alice");
            assertThat(remaining(p)).as("paid from the stock").isEqualTo(2);
            engines.at(12_000, s);
            p.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(burst(s, 4)).as("X alone counted in window 1").containsExactly(2, 1, 0, -1);
        }
    }
}
