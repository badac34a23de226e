package io.sluice.engine.prefetch;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How many requests each key brought this server in its current hold-long stretch of time and the one before, for
 * {@code prefetch=auto} to size the key's stock. Counted in {@link #STRIPES} stripes chosen by the key's hash, with no
 * allocation and no map on a request: keys that share a stripe look busier than they are, which only makes a stock a
 * little larger than needed (its unused permits go back when its hold ends). Thread-safe.
 */
final class KeyDemand {
    /** Stripes of counts; a power of two. 65 536 longs: 512 KiB per server. */
    static final int STRIPES = 1 << 16;
    /** The most one stretch counts: a demand past it sizes a stock as large as it. */
    static final int MOST = (1 << 12) - 1;
    private static final int COUNT_BITS = 12;
    private static final long COUNT_MASK = MOST;
    /** A stretch's number is kept modulo 2^40: a ticker may be anywhere, negative too. */
    private static final long STRETCH_MASK = (1L << (Long.SIZE - 2 * COUNT_BITS)) - 1;

    /** Per stripe: the stretch number (bits 24 up), the previous stretch's count and the current one's (12 bits each). */
    private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);

    /** Counts a request of {@code key} at {@code nowMillis}, in stretches of {@code holdMillis}. */
    void arrived(String key, long nowMillis, long holdMillis) {
        int i = stripe(key);
        long stretch = stretch(nowMillis, holdMillis);
        while (true) {
            long v = stripes.get(i);
            long seen = v >>> (2 * COUNT_BITS);
            long current = v & COUNT_MASK;
            long next;
            if (seen == stretch) next = v - current + Math.min(current + 1, MOST);
            else if (follows(stretch, seen)) next = stretch << (2 * COUNT_BITS) | current << COUNT_BITS | 1;
            else next = stretch << (2 * COUNT_BITS) | 1;
            if (stripes.compareAndSet(i, v, next)) return;
        }
    }

    /**
     * The key's requests per hold on this server: the more of its last whole stretch and the current one so far (a
     * burst shows at once); 0 for a key not seen in either.
     */
    long perHold(String key, long nowMillis, long holdMillis) {
        long v = stripes.get(stripe(key));
        long stretch = stretch(nowMillis, holdMillis);
        long seen = v >>> (2 * COUNT_BITS);
        long current = v & COUNT_MASK;
        long previous = (v >>> COUNT_BITS) & COUNT_MASK;
        if (seen == stretch) return Math.max(current, previous);
        return follows(stretch, seen) ? current : 0;
    }

    /** The number of the hold-long stretch {@code nowMillis} falls in, modulo 2^40. */
    private static long stretch(long nowMillis, long holdMillis) {
        return Math.floorDiv(nowMillis, holdMillis) & STRETCH_MASK;
    }

    /** Whether stretch {@code stretch} comes right after {@code seen}, modulo 2^40. */
    private static boolean follows(long stretch, long seen) {
        return ((stretch - seen) & STRETCH_MASK) == 1;
    }

    private static int stripe(String key) {
        return spread(key) & (STRIPES - 1);
    }

    /** The key's hash with its high bits folded into the low ones, which pick a stripe (here and in {@link DryKeys}). */
    static int spread(String key) {
        int h = key.hashCode();
        return h ^ (h >>> 16);
    }
}
