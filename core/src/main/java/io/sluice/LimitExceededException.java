package io.sluice;

import io.sluice.rule.HeaderStyle;

import java.time.Duration;
import java.util.Optional;

/**
 * Thrown where a rejection must become an exception: at the CDI boundary, or by code that calls
 * {@link Admission#orThrow()}. Carries the rule and when to try again; never a key or an address. When
 * thrown by Sluice it also carries the rejecting {@link #decision()} and the application's header style, so
 * an HTTP boundary (the Jakarta REST mapper) can answer exactly as the servlet filter does.
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
    /** The decision that rejected (not serialized: a rule is not). */
    private final transient Decision decision;
    /** Which rate-limit headers the application writes. */
    private final HeaderStyle headerStyle;

    /**
     * A rejection by one rule.
     *
     * @param rule       the name of the rule that rejected
     * @param retryAfter when a retry may succeed
     * @param limit      the rule's limit: permits per window, or requests in flight
     * @param remaining  permits left when the request was rejected
     */
    public LimitExceededException(String rule, Duration retryAfter, long limit, long remaining) {
        this(rule, retryAfter, limit, remaining, null, HeaderStyle.ALL);
    }

    private LimitExceededException(String rule, Duration retryAfter, long limit, long remaining, Decision decision,
                                   HeaderStyle headerStyle) {
        super(decision != null && decision.neverFits()
                ? "Rule '" + rule + "' can never admit this call: it costs " + decision.cost() + " permits, more than the rule ever admits"
                : "Limit of rule '" + rule + "' exceeded; retry after " + Math.max(1, (retryAfter.toMillis() + 999) / 1000) + "s");
        this.rule = rule;
        this.retryAfter = retryAfter;
        this.limit = limit;
        this.remaining = remaining;
        this.decision = decision;
        this.headerStyle = headerStyle;
    }

    /**
     * The exception for a rejecting decision; its retry-after is the decision's {@code Retry-After}, in whole
     * seconds.
     *
     * @param d a decision that rejects
     * @return the exception to throw
     */
    public static LimitExceededException of(Decision d) {
        return of(d, HeaderStyle.ALL);
    }

    /**
     * The exception for a rejection by {@code d}, in an application writing {@code headerStyle} headers.
     *
     * @param d           a decision that rejects
     * @param headerStyle the application's {@code sluice.headers}
     * @return the exception to throw
     */
    public static LimitExceededException of(Decision d, HeaderStyle headerStyle) {
        return new LimitExceededException(d.ruleName(), Duration.ofSeconds(d.retryAfterSeconds()), d.limit(),
                d.remaining(), d, headerStyle);
    }

    /**
     * The decision that rejected, when Sluice threw this (absent once serialized or when built by hand).
     *
     * @return the rejecting decision, if known
     */
    public Optional<Decision> decision() {
        return Optional.ofNullable(decision);
    }

    /**
     * Which rate-limit headers the application writes ({@code sluice.headers}).
     *
     * @return the header style
     */
    public HeaderStyle headerStyle() {
        return headerStyle;
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
