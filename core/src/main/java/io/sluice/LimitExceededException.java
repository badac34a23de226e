package io.sluice;

import java.time.Duration;

/**
 * Thrown where a rejection must become an exception: at the CDI boundary, or by code that calls
 * {@link Admission#orThrow()}. Carries the rule and when to try again; never a key or an address.
 */
public class LimitExceededException extends RuntimeException {
    /** The name of the rule that rejected. */
    private final String rule;
    /** When a retry may succeed. */
    private final Duration retryAfter;
    /** The rule's limit. */
    private final long limit;
    /** Permits left at the rejection. */
    private final long remaining;

    /**
     * A rejection by one rule.
     *
     * @param rule       the name of the rule that rejected
     * @param retryAfter when a retry may succeed
     * @param limit      the rule's limit: permits per window, or requests in flight
     * @param remaining  permits left when the request was rejected
     */
    public LimitExceededException(String rule, Duration retryAfter, long limit, long remaining) {
        super("Limit of rule '" + rule + "' exceeded; retry after " + Math.max(1, (retryAfter.toMillis() + 999) / 1000) + "s");
        this.rule = rule;
        this.retryAfter = retryAfter;
        this.limit = limit;
        this.remaining = remaining;
    }

    /**
     * The exception for a rejecting decision; its retry-after is the decision's {@code Retry-After}, in whole
     * seconds.
     *
     * @param d a decision that rejects
     * @return the exception to throw
     */
    public static LimitExceededException of(Decision d) {
        return new LimitExceededException(d.ruleName(), Duration.ofSeconds(d.retryAfterSeconds()), d.limit(), d.remaining());
    }

    /** {@return the name of the rule that rejected} */
    public String rule() {
        return rule;
    }

    /** {@return when a retry may succeed, at least one second} */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** {@return the rule's limit: permits per window, or requests in flight} */
    public long limit() {
        return limit;
    }

    /** {@return permits left when the request was rejected (usually 0)} */
    public long remaining() {
        return remaining;
    }
}
