package io.sluice.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A cross-check of {@link SteadyWindows}' share for a fixed window: admissions placed in the Redis window that counted
 * them by their decision's reset, which is that window's end, as a probe of the limiter does. A correct fixed window
 * holds at most its limit in every window, so a window found over it is an over-admission; a share above 100 % with
 * none over, and counted admissions placed outside the steady windows, is an error of the measure.
 *
 * <p>An answer's reset is the window's end less the instant Redis decided, rounded up to the millisecond; that instant
 * lies between the request's sending and its answer. On Redis's clock ({@link SteadyWindows.RedisTime}) the window
 * therefore ends at the first multiple of the period after {@code Redis's time at sending + reset - 1 ms}; when a second
 * multiple is reached by {@code Redis's time at the answer + reset} as well (a round trip of about a period or more),
 * the admission is left unplaced and counted as such. Exact with {@code prefetch=off}. A payment from a stock counts
 * its reset from when the stock's prefetch was sent, in whole milliseconds of the engine's ticker (up to
 * {@link #RESET_ROUNDING} long in all): its window ends after the bound below, but may end a period later than
 * placed when its prefetch's round trip and the request's add up to a period; with a prefetch the placement is a
 * hint, not a proof.
 */
final class ResetWindows {
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    /**
     * How much longer than the true time to its window's end a reset may read: Redis rounds it up to the millisecond,
     * and a stock's payment subtracts from it a difference of two readings of the ticker rounded down to the millisecond.
     */
    static final long RESET_ROUNDING = 2 * NANOS_PER_MILLI;

    private final SteadyWindows.RedisTime redis;
    private final long periodNanos;
    /** Admissions per window, by the window's index (its start in Redis's time over the period). */
    private final Map<Long, Long> perWindow = new HashMap<>();
    private long unplaced;

    /** @param redis Redis's clock placed on this process's {@link System#nanoTime()}; {@code periodNanos} the rule's */
    ResetWindows(SteadyWindows.RedisTime redis, long periodNanos) {
        if (periodNanos < NANOS_PER_MILLI) throw new IllegalArgumentException("a period of at least 1 ms: " + periodNanos);
        this.redis = redis;
        this.periodNanos = periodNanos;
    }

    /** The placements of several callers (each places its own, unshared) together; at least one. */
    static ResetWindows of(List<ResetWindows> callers) {
        ResetWindows all = new ResetWindows(callers.get(0).redis, callers.get(0).periodNanos);
        for (ResetWindows c : callers) {
            c.perWindow.forEach((w, n) -> all.perWindow.merge(w, n, Long::sum));
            all.unplaced += c.unplaced;
        }
        return all;
    }

    /** Places one admission, sent and answered at these nanoTimes, whose decision's reset was {@code resetMillis}. */
    void add(long sentNanos, long answeredNanos, long resetMillis) {
        long redisNanos = redis.redisMicros() * NANOS_PER_MICRO;
        long resetNanos = resetMillis * NANOS_PER_MILLI;
        // Redis's time at nanoTime t is redisNanos + (t - read), read somewhere in the reading's round trip.
        long endsAfter = redisNanos + sentNanos - redis.answeredNanos() + resetNanos - RESET_ROUNDING;
        long endsBy = redisNanos + answeredNanos - redis.sentNanos() + resetNanos;
        long end = Math.floorDiv(endsAfter, periodNanos) + 1;
        if ((end + 1) * periodNanos <= endsBy) {
            unplaced++;
        } else {
            perWindow.merge(end - 1, 1L, Long::sum);
        }
    }

    /** The most admissions placed in one window. */
    long most() {
        return perWindow.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** How many windows have more than {@code limit} admissions placed in them. */
    long over(long limit) {
        return perWindow.values().stream().filter(n -> n > limit).count();
    }

    /** Admissions placed outside the {@code windows} windows from index {@code first}. */
    long outside(long first, int windows) {
        return perWindow.entrySet().stream().filter(e -> e.getKey() < first || e.getKey() >= first + windows)
                .mapToLong(Map.Entry::getValue).sum();
    }

    /** Admissions whose round trip was too long to tell their window. */
    long unplaced() {
        return unplaced;
    }

    /** What was placed in each window, by index. */
    Map<Long, Long> perWindow() {
        return Map.copyOf(perWindow);
    }
}
