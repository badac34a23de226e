package io.sluice.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The arithmetic of {@link Overload}'s fixed-window cross-check: admissions placed in their Redis window by their reset. */
class ResetWindowsTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    /** nanoTime when Redis's clock was read, with a round trip of 0.4 ms. */
    private static final long SENT = 10 * SECOND;
    private static final long ROUND_TRIP = 400_000L;
    /** Redis's TIME then: 300 ms into its second 1 000 000 000 (the window of that index for a period of 1 s). */
    private static final long REDIS_MICROS = 1_000_000_000_300_000L;
    private static final long WINDOW = 1_000_000_000L;
    private static final SteadyWindows.RedisTime READING = new SteadyWindows.RedisTime(SENT, REDIS_MICROS, SENT + ROUND_TRIP);

    /**
     * Places one admission decided by Redis at {@code redisNanos} (its time), its request sent {@code before} and
     * answered {@code after} that, on a clock where Redis read its TIME half-way through the reading's round trip.
     */
    private static void decided(ResetWindows windows, long redisNanos, long before, long after, long period) {
        long end = (Math.floorDiv(redisNanos, period) + 1) * period;
        long resetMillis = -Math.floorDiv(redisNanos - end, MS);   // rounded up, as Redis does
        long at = redisNanos - REDIS_MICROS * 1_000 + SENT + ROUND_TRIP / 2;
        windows.add(at - before, at + after, resetMillis);
    }

    @Test
    void anAdmissionIsPlacedInTheWindowRedisDecidedItInEvenAtItsEdges() {
        ResetWindows windows = new ResetWindows(READING, SECOND);
        long boundary = (WINDOW + 2) * SECOND;
        decided(windows, boundary - 1_000, 300 * MS, 300 * MS, SECOND);   // 1 µs before the edge: a reset of 1 ms
        decided(windows, boundary, 300 * MS, 300 * MS, SECOND);           // on it: the next window, a reset of 1 s
        decided(windows, boundary + 1_000, 1, 1, SECOND);
        decided(windows, boundary + 500 * MS, 10 * MS, 10 * MS, SECOND);
        assertThat(windows.perWindow()).isEqualTo(Map.of(WINDOW + 1, 1L, WINDOW + 2, 3L));
        assertThat(windows.unplaced()).isZero();
    }

    @Test
    void aRoundTripOfAPeriodOrMoreMayLeaveTheAdmissionUnplaced() {
        ResetWindows windows = new ResetWindows(READING, SECOND);
        // Sent 150 ms before Redis decided, 100 ms into a window, and answered 1 s after: it may have been decided in
        // the window before (and answered 1.15 s after), or in this one.
        decided(windows, (WINDOW + 2) * SECOND + 100 * MS, 150 * MS, SECOND, SECOND);
        assertThat(windows.perWindow()).isEmpty();
        assertThat(windows.unplaced()).isEqualTo(1);
        // Answered 10 ms sooner, it is placed.
        decided(windows, (WINDOW + 2) * SECOND + 100 * MS, 150 * MS, 990 * MS, SECOND);
        assertThat(windows.perWindow()).isEqualTo(Map.of(WINDOW + 2, 1L));
    }

    @Test
    void aStocksResetUpToTwoMillisecondsLongStillPlacesItsPaymentInItsWindow() {
        ResetWindows windows = new ResetWindows(READING, SECOND);
        // Paid half a millisecond before its window ends, the reset read 2 ms (rounded up: 3 ms) where 0.5 ms was left.
        long at = (WINDOW + 3) * SECOND - MS / 2 - REDIS_MICROS * 1_000 + SENT + ROUND_TRIP / 2;
        windows.add(at - MS, at + MS, 3);
        assertThat(windows.perWindow()).isEqualTo(Map.of(WINDOW + 2, 1L));
    }

    @Test
    void windowsOfOtherPeriodsAreTheirMultiples() {
        ResetWindows windows = new ResetWindows(READING, 250 * MS);
        decided(windows, (WINDOW + 2) * SECOND + 260 * MS, MS, MS, 250 * MS);
        assertThat(windows.perWindow()).isEqualTo(Map.of((WINDOW + 2) * 4 + 1, 1L));
    }

    @Test
    void theCrossCheckCountsTheMostInAWindowTheWindowsOverTheLimitAndThoseOutside() {
        ResetWindows one = new ResetWindows(READING, SECOND);
        ResetWindows other = new ResetWindows(READING, SECOND);
        for (int i = 0; i < 3; i++) decided(one, (WINDOW + 2) * SECOND + i * MS, MS, MS, SECOND);
        decided(other, (WINDOW + 2) * SECOND + 900 * MS, MS, MS, SECOND);
        decided(other, (WINDOW + 3) * SECOND, MS, MS, SECOND);
        decided(other, (WINDOW + 5) * SECOND, MS, MS, SECOND);
        ResetWindows all = ResetWindows.of(List.of(one, other));
        assertThat(all.most()).isEqualTo(4);
        assertThat(all.over(3)).isEqualTo(1);
        assertThat(all.over(4)).isZero();
        assertThat(all.outside(WINDOW + 2, 2)).as("window 5 is after windows 2 and 3").isEqualTo(1);
        assertThat(all.outside(WINDOW + 3, 3)).isEqualTo(4);
        assertThat(new ResetWindows(READING, SECOND).most()).isZero();
    }

    @Test
    void aPeriodBelowAMillisecondIsRefused() {
        assertThatThrownBy(() -> new ResetWindows(READING, MS - 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
