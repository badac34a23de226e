package io.sluice.spi;

/**
 * The backend's answer to a {@link RateRequest}: everything the rate headers need, from one call.
 *
 * @param allowed          whether the permits were taken
 * @param remaining        permits left in the window after this decision
 * @param resetMillis      until the oldest permit in the window frees (0 when none is taken)
 * @param retryAfterMillis until the requested permits would be free (0 when allowed)
 */
public record RateOutcome(boolean allowed, long remaining, long resetMillis, long retryAfterMillis) {
}
