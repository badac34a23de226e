package io.sluice.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The arithmetic of {@link Overload}'s steady windows: where they lie on this process's clock and what they count. */
class SteadyWindowsTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    /** nanoTime when Redis's clock was read, with a round trip of 0.4 ms. */
    private static final long SENT = 10 * SECOND;
    private static final long ROUND_TRIP = 400_000L;
    /** Redis's TIME then: 300 ms into one of its seconds. */
    private static final long REDIS_MICROS = 1_000_000_000_300_000L;
    private static final SteadyWindows.RedisTime READING = new SteadyWindows.RedisTime(SENT, REDIS_MICROS, SENT + ROUND_TRIP);

    @Test
    void theWindowsStartAtRedisNextBoundaryAndTheReadingsRoundTripNarrowsBothEdges() {
        // Settled 2 s after the reading: Redis is then at 2.2996 to 2.3 s past a whole second; its next window starts
        // 0.7 s later, which this process has surely passed once the reading's whole round trip has passed too.
        SteadyWindows steady = SteadyWindows.after(SENT + 2 * SECOND, READING, SECOND, 3);
        assertThat(steady.fromNanos()).isEqualTo(SENT + 2_700 * MS + ROUND_TRIP);
        assertThat(steady.toNanos()).isEqualTo(SENT + 5_700 * MS);
        assertThat(steady.windows()).isEqualTo(3);
    }

    @Test
    void aSettlingThatEndsOnABoundaryStartsThere() {
        // Redis's 3rd second starts at nanoTime SENT + 0.7 s at the earliest (its clock read at the round trip's end).
        SteadyWindows steady = SteadyWindows.after(SENT + 700 * MS + ROUND_TRIP, READING, SECOND, 1);
        assertThat(steady.fromNanos()).isEqualTo(SENT + 700 * MS + ROUND_TRIP);
        assertThat(steady.toNanos()).isEqualTo(SENT + 1_700 * MS);
    }

    @Test
    void windowsOfOtherPeriodsAlignOnTheirMultiples() {
        // 250 ms windows: Redis at 2.2996 s past a whole second at the earliest, the next window starts at 2.5 s.
        SteadyWindows steady = SteadyWindows.after(SENT + 2 * SECOND, READING, 250 * MS, 4);
        assertThat(steady.fromNanos()).isEqualTo(SENT + 2_200 * MS + ROUND_TRIP);
        assertThat(steady.toNanos()).isEqualTo(SENT + 3_200 * MS);
        assertThat(steady.perSecond(400)).isEqualTo(400.0);
        assertThat(steady.shareOf(100, 400)).isEqualTo(1.0);
    }

    @Test
    void onlyRequestsSentAndAnsweredWithinTheWindowsCount() {
        SteadyWindows steady = SteadyWindows.after(SENT + 2 * SECOND, READING, SECOND, 3);
        long from = steady.fromNanos();
        long to = steady.toNanos();
        assertThat(steady.holds(from, from + MS)).isTrue();
        assertThat(steady.holds(to - 2 * MS, to - 1)).isTrue();
        assertThat(steady.holds(from - 1, from + MS)).as("in flight across the first edge").isFalse();
        assertThat(steady.holds(to - MS, to)).as("in flight across the last edge").isFalse();
        assertThat(steady.holds(from - 2 * MS, from - MS)).isFalse();
    }

    @Test
    void perSecondAndShareAreOverTheWholeWindows() {
        SteadyWindows steady = SteadyWindows.after(SENT, READING, 10 * SECOND, 2);
        assertThat(steady.perSecond(1_000)).isEqualTo(50.0);
        assertThat(steady.shareOf(500, 1_000)).isEqualTo(1.0);
        assertThat(steady.shareOf(500, 990)).isEqualTo(0.99);
    }

    @Test
    void aFixedWindowThatAdmitsSlowlyInOneWindowReadsItsLimitNotMore() {
        // What issue 26's overload note saw: a fixed window of 100/1s that admits its whole limit in each window, the
        // window holding the settling's end slowly (over 900 ms), the others in their first 10 ms. Answers come 1 ms
        // after Redis decided, requests are sent 1 ms before.
        long limit = 100;
        long settled = SENT + 3_200 * MS;   // in window 2, half-way
        List<long[]> requests = new ArrayList<>();
        long firstBoundary = SENT + 700 * MS + ROUND_TRIP / 2;   // Redis read its clock mid-way through the round trip
        for (int w = 0; w < 7; w++) {
            long spread = w == 2 ? 900 * MS : 10 * MS;
            for (int i = 0; i < limit; i++) {
                long decided = firstBoundary + w * SECOND + 2 * MS + i * spread / limit;
                requests.add(new long[] {decided - MS, decided + MS});
            }
        }
        // Before: the answers of the 3 s after the settling, wherever that falls in a window. Window 2's last 44
        // answers, then windows 3, 4 and 5 whole: 3.44 windows' limit in 3 s.
        long before = requests.stream().filter(r -> r[1] >= settled && r[1] < settled + 3 * SECOND).count();
        assertThat(before).isEqualTo(344);
        // After: Redis's windows 3, 4 and 5 whole.
        SteadyWindows steady = SteadyWindows.after(settled, READING, SECOND, 3);
        long after = requests.stream().filter(r -> steady.holds(r[0], r[1])).count();
        assertThat(after).isEqualTo(300);
        assertThat(steady.shareOf(limit, after)).isEqualTo(1.0);
        assertThat(steady.perSecond(after)).isEqualTo(100.0);
    }

    @Test
    void aRedisClockThatGainsMeanwhileEndsTheWindowsSoonerByTheLaterReading() {
        // What the lead's run looked like: every algorithm 0.4 % over, Redis's clock 24 ms ahead after 6 windows.
        SteadyWindows steady = SteadyWindows.after(SENT + 2 * SECOND, READING, SECOND, 6);
        long gain = 24 * MS;
        SteadyWindows.RedisTime later = new SteadyWindows.RedisTime(SENT + 9 * SECOND, REDIS_MICROS + (9 * SECOND + gain) / 1_000,
                SENT + 9 * SECOND + ROUND_TRIP);
        assertThat(SteadyWindows.gained(READING, later)).isEqualTo(gain);
        SteadyWindows narrowed = steady.narrowedBy(later);
        assertThat(narrowed.fromNanos()).as("the first edge as the earlier reading placed it").isEqualTo(steady.fromNanos());
        assertThat(narrowed.toNanos()).isEqualTo(steady.toNanos() - gain);
        assertThat(narrowed.firstWindow()).isEqualTo(steady.firstWindow());
        assertThat(narrowed.windows()).isEqualTo(6);
        // A fixed window's burst 10 ms into the 7th window, which the earlier reading alone counted.
        long burst = steady.toNanos() - gain + 10 * MS;
        assertThat(steady.holds(burst - MS, burst)).isTrue();
        assertThat(narrowed.holds(burst - MS, burst)).isFalse();
    }

    @Test
    void aRedisClockThatLosesMeanwhileStartsTheWindowsLaterByTheLaterReading() {
        SteadyWindows steady = SteadyWindows.after(SENT + 2 * SECOND, READING, SECOND, 6);
        long loss = 24 * MS;
        SteadyWindows.RedisTime later = new SteadyWindows.RedisTime(SENT + 9 * SECOND, REDIS_MICROS + (9 * SECOND - loss) / 1_000,
                SENT + 9 * SECOND + ROUND_TRIP);
        assertThat(SteadyWindows.gained(READING, later)).isEqualTo(-loss);
        SteadyWindows narrowed = steady.narrowedBy(later);
        assertThat(narrowed.fromNanos()).isEqualTo(steady.fromNanos() + loss);
        assertThat(narrowed.toNanos()).as("the last edge as the earlier reading placed it").isEqualTo(steady.toNanos());
    }

    @Test
    void aClockThatKeptTimeNarrowsNothing() {
        SteadyWindows steady = SteadyWindows.after(SENT + 2 * SECOND, READING, SECOND, 3);
        SteadyWindows.RedisTime later = new SteadyWindows.RedisTime(SENT + 6 * SECOND, REDIS_MICROS + 6_000_000, SENT + 6 * SECOND + ROUND_TRIP);
        assertThat(SteadyWindows.gained(READING, later)).isZero();
        SteadyWindows narrowed = steady.narrowedBy(later);
        assertThat(narrowed.fromNanos()).isEqualTo(steady.fromNanos());
        assertThat(narrowed.toNanos()).isEqualTo(steady.toNanos());
    }

    @Test
    void theMostInASecondCountsAnswersInAnyRollingSecond() {
        assertThat(SteadyWindows.mostInASecond(new long[0])).isZero();
        // A fixed window's edge: 3 answers at the end of one window and 3 at the start of the next, 0.2 s apart.
        long[] answers = {SECOND + 900 * MS, 2 * SECOND + 100 * MS, SECOND + 950 * MS, SECOND + 990 * MS,
            2 * SECOND + 10 * MS, 2 * SECOND + 20 * MS, 3 * SECOND + 990 * MS};
        assertThat(SteadyWindows.mostInASecond(answers)).isEqualTo(6);
        assertThat(SteadyWindows.mostInASecond(new long[] {0, SECOND, 2 * SECOND})).as("a second excludes its end").isEqualTo(1);
    }

    @Test
    void aReadingAnsweredBeforeItWasSentOrNoWholeWindowIsRefused() {
        assertThatThrownBy(() -> new SteadyWindows.RedisTime(SENT, REDIS_MICROS, SENT - 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SteadyWindows.after(SENT, READING, SECOND, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
