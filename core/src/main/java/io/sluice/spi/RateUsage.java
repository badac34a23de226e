package io.sluice.spi;

/**
 * A rate key's usage as {@link KeyControl#peek} found it. Immutable.
 *
 * @param remaining     nominal permits the key may still take now (0 while blocked)
 * @param resetMillis   until a permit frees (0 when none is taken)
 * @param blockedMillis the time the key's block has left (0 when not blocked)
 */
public record RateUsage(long remaining, long resetMillis, long blockedMillis) {

    /**
     * The usage an outcome that took nothing says, or, while the key is blocked, the block's.
     *
     * @param o             an outcome of the key that took nothing (a peek's)
     * @param blockedMillis the block's time left, 0 for none
     * @return the usage
     */
    public static RateUsage of(RateOutcome o, long blockedMillis) {
        return blockedMillis > 0 ? new RateUsage(0, blockedMillis, blockedMillis) : new RateUsage(o.remaining(), o.resetMillis(), 0);
    }

    /**
     * A request of {@code r}'s key that takes nothing from any algorithm: one costing more than the key can ever
     * hold, which every backend answers with what is left, rejected, without consuming.
     *
     * @param r a request of the key
     * @return the request to peek with
     */
    public static RateRequest peekOf(RateRequest r) {
        return r.withCost(r.mostAtOnce() + 1);
    }
}
