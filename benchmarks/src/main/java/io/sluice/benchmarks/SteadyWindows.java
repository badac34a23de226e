package io.sluice.benchmarks;

import java.util.Arrays;

/**
 * The steady part of an {@link Overload} run: whole windows of the rule's period, aligned on the windows Redis counts
 * in (multiples of the period in Redis's time), and the admissions known to have been decided inside them.
 *
 * <p>A request is counted only when it was sent and answered within the steady windows: Redis (or a stock this
 * server prefetched in the same window) decided it at some instant between the two, so it is in one of those windows
 * whatever the round trip. A request in flight across the first or the last edge is left out, so the count is a lower
 * bound of what those windows admitted, short by at most the callers in flight at the two edges, and never above
 * it. A correct fixed or sliding window admits at most its limit in each of its windows and a log at most its limit in
 * any period, so their share of {@code windows × limit} reads at most 100 %. A bucket admits its limit per period plus
 * what it and the servers' stocks held at the first edge, less what they hold at the last: about nothing under
 * overload, so at most a stock's worth above.
 *
 * <p>Times are {@link System#nanoTime()}; Redis's time is placed on it by a {@link RedisTime} reading taken before the
 * callers start, whose round trip narrows the steady span on both sides so that no edge is crossed whichever instant
 * of it Redis read its clock at, and by a second one taken after they stop ({@link #narrowedBy}), so that a Redis
 * clock that gains or loses on {@code nanoTime} meanwhile does not widen the span either.
 */
final class SteadyWindows {
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /**
     * Redis's clock read once: {@code redisMicros} (its {@code TIME}) was read between {@code sentNanos} and
     * {@code answeredNanos} of this process's {@link System#nanoTime()}.
     */
    record RedisTime(long sentNanos, long redisMicros, long answeredNanos) {
        RedisTime {
            if (answeredNanos < sentNanos) throw new IllegalArgumentException("answered before sent: " + sentNanos + " > " + answeredNanos);
        }
    }

    private final long fromNanos;
    private final long toNanos;
    private final int windows;
    private final long periodNanos;
    private final long firstWindow;

    private SteadyWindows(long fromNanos, long toNanos, int windows, long periodNanos, long firstWindow) {
        this.firstWindow = firstWindow;
        this.fromNanos = fromNanos;
        this.toNanos = toNanos;
        this.windows = windows;
        this.periodNanos = periodNanos;
    }

    /**
     * The {@code windows} whole windows of {@code periodNanos} that start with the first of Redis's windows to begin at
     * or after {@code settledNanos}.
     */
    static SteadyWindows after(long settledNanos, RedisTime redis, long periodNanos, int windows) {
        if (periodNanos < NANOS_PER_MICRO) throw new IllegalArgumentException("a period of at least 1 µs: " + periodNanos);
        if (windows < 1) throw new IllegalArgumentException("at least one window: " + windows);
        // Redis's time at nanoTime t is redisNanos + (t - read), read somewhere in [sent, answered].
        long redisNanos = redis.redisMicros() * NANOS_PER_MICRO;
        // The earliest Redis time settledNanos can be, and the first window boundary at or after it.
        long earliest = redisNanos + settledNanos - redis.answeredNanos();
        long first = Math.floorDiv(earliest + periodNanos - 1, periodNanos) * periodNanos;
        long last = first + windows * periodNanos;
        return new SteadyWindows(surelyPassed(first, redis), notYet(last, redis), windows, periodNanos, Math.floorDiv(first, periodNanos));
    }

    /**
     * These windows as a second reading of Redis's clock, taken after the callers stopped, also places them: each edge
     * where the stricter of the two readings puts it. Between two readings Redis's clock may gain on this process's
     * or lose (in a virtual machine its wall clock can be stepped while {@code nanoTime} runs on): when it gains, its
     * last edge comes sooner than the first reading says, and the later reading, taken after that edge, says so; when
     * it loses, its first edge comes later, and the later reading, taken after that edge, says so. So a clock that
     * moves one way, steadily or in one step, never widens the windows past Redis's.
     */
    SteadyWindows narrowedBy(RedisTime later) {
        long first = firstWindow * periodNanos;
        long from = Math.max(fromNanos, surelyPassed(first, later));
        long to = Math.min(toNanos, notYet(first + windows * periodNanos, later));
        return new SteadyWindows(from, to, windows, periodNanos, firstWindow);
    }

    /**
     * How far (ns) Redis's clock gained on this process's from {@code earlier} to {@code later} (lost, if negative),
     * taking each reading at the middle of its round trip: exact within half their round trips added.
     */
    static long gained(RedisTime earlier, RedisTime later) {
        long redis = (later.redisMicros() - earlier.redisMicros()) * NANOS_PER_MICRO;
        return redis - (middle(later) - middle(earlier));
    }

    private static long middle(RedisTime reading) {
        return reading.sentNanos() + (reading.answeredNanos() - reading.sentNanos()) / 2;
    }

    /** The nanoTime from which Redis's clock has surely passed {@code redisNanos}, by this reading. */
    private static long surelyPassed(long redisNanos, RedisTime redis) {
        // Redis's time at nanoTime t is redisMicros + (t - read), read somewhere in [sent, answered].
        return redisNanos - redis.redisMicros() * NANOS_PER_MICRO + redis.answeredNanos();
    }

    /** The nanoTime before which Redis's clock has surely not reached {@code redisNanos}, by this reading. */
    private static long notYet(long redisNanos, RedisTime redis) {
        return redisNanos - redis.redisMicros() * NANOS_PER_MICRO + redis.sentNanos();
    }

    /** From when (nanoTime) a request counts if sent then or later. */
    long fromNanos() {
        return fromNanos;
    }

    /** Until when (nanoTime, excluded) a request counts if answered before; callers may stop asking then. */
    long toNanos() {
        return toNanos;
    }

    /** The index of the first steady window: its start in Redis's time over the period. */
    long firstWindow() {
        return firstWindow;
    }

    int windows() {
        return windows;
    }

    /** Whether a request sent and answered at these instants was decided within the steady windows. */
    boolean holds(long sentNanos, long answeredNanos) {
        return sentNanos >= fromNanos && answeredNanos < toNanos;
    }

    /** Admitted per second over the steady windows, for {@code admitted} counted by {@link #holds}. */
    double perSecond(long admitted) {
        return admitted * (double) NANOS_PER_SECOND / (windows * (double) periodNanos);
    }

    /** The share (1 is all of it) of {@code limit} per window that {@code admitted} make over the steady windows. */
    double shareOf(long limit, long admitted) {
        return admitted / ((double) windows * limit);
    }

    /** The most of {@code answeredNanos} (any order; sorted here) in any second. */
    static long mostInASecond(long[] answeredNanos) {
        long[] sorted = answeredNanos.clone();
        Arrays.sort(sorted);
        long most = 0;
        for (int i = 0, j = 0; i < sorted.length; i++) {
            while (sorted[i] - sorted[j] >= NANOS_PER_SECOND) j++;
            most = Math.max(most, i - j + 1);
        }
        return most;
    }
}
