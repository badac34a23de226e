package io.sluice.engine.prefetch;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Keys whose last call brought fewer permits than it asked ({@code prefetch=auto}): until a hold has passed they get no
 * new stock and are decided in the backend as without prefetch. A key at or near its limit gains little from a stock,
 * and one call of its own at a time would have every other request of the key wait for that call and then ask the
 * backend again: two round trips where one (coalesced with the key's other requests, or answered by the shield)
 * decides it. Kept in {@link #STRIPES} stripes
 * chosen by the key's hash, with no allocation on a request: a key that shares a stripe with a dry one goes without a
 * stock for that hold, which costs it round trips, never exactness. Thread-safe.
 */
final class DryKeys {
    /** Stripes of pause ends; a power of two. 16 384 longs: 128 KiB per server. */
    static final int STRIPES = 1 << 14;

    /** Per stripe: when its pause ends, on the ticker's milliseconds ({@link Long#MIN_VALUE}: none yet; a ticker may be negative). */
    private final AtomicLongArray until = new AtomicLongArray(STRIPES);

    DryKeys() {
        for (int i = 0; i < STRIPES; i++) until.set(i, Long.MIN_VALUE);
    }

    /** {@code key}'s call came short at {@code nowMillis}: no new stock for it before {@code holdMillis} pass. */
    void cameShort(String key, long nowMillis, long holdMillis) {
        until.accumulateAndGet(stripe(key), nowMillis + holdMillis, Math::max);
    }

    /** Whether {@code key} is to go without a stock at {@code nowMillis}. */
    boolean dry(String key, long nowMillis) {
        return nowMillis < until.get(stripe(key));
    }

    private static int stripe(String key) {
        return KeyDemand.spread(key) & (STRIPES - 1);
    }
}
