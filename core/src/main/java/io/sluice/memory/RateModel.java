package io.sluice.memory;

import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/**
 * The pure-Java reference model of one rate algorithm's state for one key: the same computation as the
 * algorithm's Redis script, operation for operation in IEEE doubles (as Lua computes), with time as a
 * parameter. The in-memory backend runs on these models; tests drive a model and the real script with the
 * same requests and times and require identical answers.
 *
 * <p>Times are microseconds since the epoch. Not thread-safe: callers serialise calls per key.
 */
public interface RateModel {

    /** Decides {@code r} at {@code nowMicros}; a rejection changes nothing. */
    RateOutcome consume(RateRequest r, long nowMicros);

    /** Hands back {@code r.cost()} permits taken earlier (an elastic request its capacity rule could not pay for). */
    void refund(RateRequest r, long nowMicros);

    /**
     * Hands back {@code r.cost()} permits an admitted outcome said it keeps under {@code entry} ({@link
     * RateOutcome#entry()}; null: not known, as {@link #refund(RateRequest, long)}). Only a window counter names a place.
     *
     * @return whether a count got permits back (not when the place counts no more)
     */
    default boolean refund(RateRequest r, Entry entry, long nowMicros) {
        refund(r, nowMicros);
        return true;
    }

    /**
     * As {@link #refund(RateRequest, Entry, long)}: how much the key's remaining rose (0 when no count got permits
     * back); the whole cost, but for a sliding window's previous window, which weighs less.
     */
    default long refundCredited(RateRequest r, Entry entry, long nowMicros) {
        return refund(r, entry, nowMicros) ? r.cost() : 0;
    }

    /**
     * Takes {@code r.cost()} permits whatever is left, past the limit if need be (a request settled at more than its
     * estimate); only {@link Algorithm#settleable()} algorithms.
     */
    default void charge(RateRequest r, long nowMicros) {
        throw new UnsupportedOperationException(r.algorithm() + " cannot take permits past its limit");
    }

    /** When the state has become the same as no state at all (the script's key TTL, less its slack). */
    long idleAtMicros();

    /** A fresh model of {@code algorithm}; {@code sliding-log} has none (its state is Redisson's). */
    static RateModel of(Algorithm algorithm) {
        return switch (algorithm) {
            case TOKEN_BUCKET -> new TokenBucketModel();
            case LEAKY_BUCKET -> new LeakyBucketModel();
            case FIXED_WINDOW -> new FixedWindowModel();
            case SLIDING_WINDOW -> new SlidingWindowModel();
            case SLIDING_LOG -> throw new IllegalArgumentException("sliding-log has no reference model of this kind");
        };
    }

    /** Microseconds to whole milliseconds, rounded up as the scripts do (a wait is never announced short). */
    static long millis(double micros) {
        return (long) Math.ceil(micros / 1000);
    }

    /** A window counter's entry for window {@code w}, as the scripts answer it. */
    static Entry.WindowIndex windowEntry(double w) {
        return new Entry.WindowIndex((long) w);
    }

    /** The window index a window counter's entry names (not null). */
    static double windowOf(Entry entry) {
        return Entry.as(Entry.WindowIndex.class, entry).index();
    }

    /** The index of the fixed window of {@code period} that holds {@code now}, exactly, as the scripts compute it. */
    static double window(double now, double period) {
        double w = Math.floor(now / period);
        if (w * period > now) w = w - 1;
        else if ((w + 1) * period <= now) w = w + 1;
        return w;
    }
}
