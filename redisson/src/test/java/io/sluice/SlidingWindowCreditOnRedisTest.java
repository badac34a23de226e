package io.sluice;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.LongStream;

import static io.sluice.CallerClockEngine.admitSettled;
import static io.sluice.CallerClockEngine.remaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's flaky known scenario, at every phase of the window: a sliding window's permit given back off the previous
 * window raises the key's remaining by that window's weight, rounded as the remaining is (often less than the permit,
 * maybe nothing). A prefetching engine that credited the whole permit to what it heard the key had left answered a
 * stock-paid request's {@code Remaining} one too high (1 where Redis and the model say 0) once the window was half
 * gone. Windows of 10 s, aligned to the hour the clock starts in.
 */
class SlidingWindowCreditOnRedisTest {
    private static final long LIMIT = 4;
    private static final long PERIOD_MILLIS = 10_000;
    /** Where in window 0 the first request comes: every 500 ms of it, so every phase of window 1 is met. */
    private static final long PHASE_STEP_MILLIS = 500;

    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(0);

    static LongStream phases() {
        return LongStream.range(0, PERIOD_MILLIS / PHASE_STEP_MILLIS).map(i -> i * PHASE_STEP_MILLIS);
    }

    /** The contract's remaining: the limit less the previous window's count at its weight and the current one's. */
    private static long expected(long previous, long current, long intoWindowMillis) {
        double weight = (double) (PERIOD_MILLIS - intoWindowMillis) / PERIOD_MILLIS;
        return (long) Math.max(0, Math.floor(LIMIT - (previous * weight + current)));
    }

    /**
     * {@code 4/10s}, {@code prefetch=2}, counting failures: X at {@code phase} brings a stock, which pays P 0.1 s later;
     * 10 s on, B brings window 1's stock, which pays C; P's success gives P's permit back off window 0; D is paid from
     * the stock: its {@code Remaining} is what the contract's estimate leaves (X alone in window 0, B, C and D in window
     * 1), and E is rejected.
     */
    @ParameterizedTest(name = "X at {0} ms into window 0")
    @MethodSource("phases")
    void aPreviousWindowsGiveBackRaisesTheRemainingByItsWeight(long phase) {
        try (Sluice s = engines.build("sluice.rules.r1.rate", "4/10s", "sluice.rules.r1.algorithm", "sliding-window",
                "sluice.rules.r1.count", "failure", "sluice.rules.r1.prefetch", "2")) {
            engines.at(phase, s);
            Admission x = admitSettled(s, "r1", "alice");
            engines.at(phase + 100, s);
            Admission p = admitSettled(s, "r1", "alice");
            assertThat(remaining(x)).isEqualTo(3);
            assertThat(remaining(p)).isEqualTo(2);
            long into = phase + 100;
            engines.at(PERIOD_MILLIS + into, s);
            Admission b = admitSettled(s, "r1", "alice");
            Admission c = admitSettled(s, "r1", "alice");
            assertThat(remaining(b)).as("B").isEqualTo(expected(2, 1, into));
            assertThat(remaining(c)).as("C").isEqualTo(expected(2, 2, into));
            p.end(Ending.status(200)).toCompletableFuture().join();
            Admission d = admitSettled(s, "r1", "alice");
            assertThat(d.allowed()).as("D").isTrue();
            assertThat(remaining(d)).as("D, after P's give-back off window 0").isEqualTo(expected(1, 3, into));
            assertThat(admitSettled(s, "r1", "alice").allowed()).as("E").isFalse();
        }
    }
}
