package io.sluice.spi;

/**
 * The backend's answer to a {@link RateRequest}: everything the rate headers need, from one call.
 *
 * @param allowed          whether the permits were taken
 * @param remaining        nominal permits the key may still take now (never below 0, also under soft throttling)
 * @param resetMillis      until a permit frees (0 when none is taken)
 * @param retryAfterMillis until the requested permits would be free (0 when allowed; {@link #NEVER_FITS} when the
 *                         cost is above what the key can ever hold)
 * @param delayMillis      {@code leaky-bucket}: how long an admitted request waits for its slot (0 otherwise)
 * @param overLimit        admitted above the nominal limit (soft or elastic throttling): an elastic rule must now
 *                         pay for it from its capacity rule, or refund it
 * @param entry            where an admitted request's permits are kept, when the backend can tell (a
 *                         {@code sliding-log}'s log entry, the window a {@code fixed-window} or {@code sliding-window}
 *                         counted them in, a {@code leaky-bucket}'s slot): what {@link Refunding#refund(RateRequest,
 *                         Entry)} takes back, so that a refund gives back this request's permits and no other's (a
 *                         window counter's: never off a later window's counter); null when the backend keeps no such
 *                         place (a token bucket) or the request was rejected
 */
public record RateOutcome(boolean allowed, long remaining, long resetMillis, long retryAfterMillis,
                          long delayMillis, boolean overLimit, Entry entry) {

    /** {@link #retryAfterMillis()} of a request whose cost can never fit, however long it waits. */
    public static final long NEVER_FITS = -1;

    /**
     * An outcome without an entry of its own.
     *
     * @param allowed          whether the permits were taken
     * @param remaining        nominal permits the key may still take now
     * @param resetMillis      until a permit frees
     * @param retryAfterMillis until the requested permits would be free
     * @param delayMillis      how long an admitted request waits for its leaky-bucket slot
     * @param overLimit        admitted above the nominal limit
     */
    public RateOutcome(boolean allowed, long remaining, long resetMillis, long retryAfterMillis, long delayMillis,
                       boolean overLimit) {
        this(allowed, remaining, resetMillis, retryAfterMillis, delayMillis, overLimit, null);
    }

    /**
     * An outcome without delay or overage, as {@code sliding-log} under hard throttling answers.
     *
     * @param allowed          whether the permits were taken
     * @param remaining        permits left
     * @param resetMillis      until a permit frees
     * @param retryAfterMillis when a rejected request may succeed
     */
    public RateOutcome(boolean allowed, long remaining, long resetMillis, long retryAfterMillis) {
        this(allowed, remaining, resetMillis, retryAfterMillis, 0, false);
    }

    /**
     * This outcome, its permits kept under {@code entry}.
     *
     * @param entry where the backend keeps the request's permits (null: nowhere it can tell)
     * @return the same outcome with that entry
     */
    public RateOutcome withEntry(Entry entry) {
        return new RateOutcome(allowed, remaining, resetMillis, retryAfterMillis, delayMillis, overLimit, entry);
    }

    /**
     * Whether the request was rejected because its cost is above the key's capacity.
     *
     * @return true when no wait would let it fit
     */
    public boolean neverFits() {
        return !allowed && retryAfterMillis == NEVER_FITS;
    }
}
