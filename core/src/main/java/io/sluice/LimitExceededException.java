package io.sluice;

import java.time.Duration;

/**
 * Thrown where a rejection must become an exception: at the CDI boundary, or by code that calls
 * {@link Admission#orThrow()}. Carries the rule and when to try again; never a key or an address.
 */
public class LimitExceededException extends RuntimeException {
    private final String rule;
    private final Duration retryAfter;
    private final long limit;
    private final long remaining;

    public LimitExceededException(String rule, Duration retryAfter, long limit, long remaining) {
        super("Limit of rule '" + rule + "' exceeded; retry after " + Math.max(1, (retryAfter.toMillis() + 999) / 1000) + "s");
        this.rule = rule;
        this.retryAfter = retryAfter;
        this.limit = limit;
        this.remaining = remaining;
    }

    public static LimitExceededException of(Decision d) {
        return new LimitExceededException(d.ruleName(), Duration.ofSeconds(d.retryAfterSeconds()), d.limit(), d.remaining());
    }

    /** The name of the rule that rejected. */
    public String rule() {
        return rule;
    }

    /** When a retry may succeed, at least one second. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** The rule's limit: permits per window, or requests in flight. */
    public long limit() {
        return limit;
    }

    /** Permits left when the request was rejected (usually 0). */
    public long remaining() {
        return remaining;
    }
}
