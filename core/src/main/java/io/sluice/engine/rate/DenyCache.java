package io.sluice.engine.rate;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The attack shield's memory: per rate key, what the backend last said remains and until when that cannot grow.
 * Until a permit frees (the backend's reset: the oldest log entry leaving, the next token, the next window) a
 * key's permits can only be taken, never returned, so a request costing more than what remains is certain to be
 * rejected, and can be rejected on this server without a round trip. A key with nothing left rejects everything;
 * a key with 3 left rejects a cost-10 request and still lets a cost-1 request ask.
 *
 * <p>What remains is remembered with the limit and capacity it was counted against: a request under another
 * limit (a plan, a reloaded rule) is never judged by it. Bounded: past {@code maxEntries} it drops expired
 * entries (at most once a second), and if still full it stops remembering (and so only stops shielding). Every
 * {@code now} is a reading of the monotonic {@link Ticker} in milliseconds, never the wall clock: a clock stepped
 * back would otherwise keep a key shielded for as long. Thread-safe.
 */
public final class DenyCache {
    private static final long SWEEP_INTERVAL_MILLIS = 1_000;
    /**
     * Backends round a reset up to the next millisecond (a token due in 0.4 ms answers 1 ms): the shield holds
     * only until a millisecond before the reset, when the permit cannot have freed yet.
     */
    static final long RESET_ROUNDING_MILLIS = 1;

    /**
     * At most {@code remaining} permits are left until {@code until} (the reset as the backend answered it),
     * under {@code limit} and {@code capacity}.
     */
    public record Known(long until, long remaining, long limit, long capacity) {
        /** Milliseconds until the reset the backend answered, at {@code now}: the shield's retry-after. */
        public long millisLeft(long now) {
            return Math.max(0, until - now);
        }

        /** Whether this knowledge applies to a request under {@code limit} and {@code capacity} at {@code now}. */
        public boolean appliesTo(long limit, long capacity, long now) {
            return until - RESET_ROUNDING_MILLIS > now && this.limit == limit && this.capacity == capacity;
        }
    }

    private final Map<String, Known> entries = new ConcurrentHashMap<>();
    private final int maxEntries;
    private volatile long nextSweep = Long.MIN_VALUE;

    public DenyCache(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    /**
     * What is known of the key that applies to a request under {@code limit} and {@code capacity} now; null if
     * nothing (never asked, expired, or counted against another limit).
     */
    public Known known(String key, long now, long limit, long capacity) {
        Known k = entries.get(key);
        return k != null && k.appliesTo(limit, capacity, now) ? k : null;
    }

    /**
     * Records the backend's answer, asked at {@code now}: {@code remaining} left, none freeing for {@code millis}.
     * Answers for one key must be recorded in the order the backend gave them.
     */
    public void remember(String key, long now, long millis, long remaining, long limit, long capacity) {
        if (millis <= RESET_ROUNDING_MILLIS) return;
        if (entries.size() >= maxEntries && !entries.containsKey(key)) {
            // A full scan at most once a second: under a flood of distinct keys every request would otherwise
            // scan the whole map on its way to Redis.
            if (now >= nextSweep) {
                nextSweep = now + SWEEP_INTERVAL_MILLIS;
                entries.values().removeIf(e -> e.until() <= now);
            }
            if (entries.size() >= maxEntries) return;
        }
        entries.put(key, new Known(now + millis, remaining, limit, capacity));
    }

    /**
     * What is still certainly left, at most, after a request of {@code cost} was sent with {@code budget} at most
     * left: taken, it leaves {@code budget - cost}; rejected, there were fewer than {@code cost}, so at most
     * {@code cost - 1} (and never more than before).
     */
    public static long afterRequest(long budget, long cost) {
        return Math.max(budget - cost, Math.min(budget, cost - 1));
    }

    /** Forgets the key (permits were handed back to it). */
    public void forget(String key) {
        entries.remove(key);
    }

    /** Forgets everything (limits may have changed). */
    public void clear() {
        entries.clear();
    }

    public int size() {
        return entries.size();
    }
}
