package io.sluice.spi;

/**
 * Permits of a prefetched stock that its server used at one instant, {@code beforeEndMillis} before the stock's hold
 * ended: told when the stock goes back ({@link Prefetching#returnPrefetched(Prefetch, long, java.util.List)}), so that
 * a log counts them from then on, as if each had been asked of it when it was used. Immutable.
 *
 * @param permits         permits used at that instant, at least 1
 * @param beforeEndMillis how long before the hold's end they were used, at least 0
 */
public record PrefetchUse(long permits, long beforeEndMillis) {
    /**
     * Checks the numbers.
     *
     * @param permits         permits used at that instant
     * @param beforeEndMillis how long before the hold's end
     */
    public PrefetchUse {
        if (permits < 1) throw new IllegalArgumentException("a use is of at least one permit: " + permits);
        if (beforeEndMillis < 0) throw new IllegalArgumentException("a use is within the hold: " + beforeEndMillis + " ms after its end");
    }
}
