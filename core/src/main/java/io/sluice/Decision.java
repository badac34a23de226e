package io.sluice;

import io.sluice.rule.Rule;

import java.time.Duration;

/**
 * What one rule decided for one request: a value, not an exception. Carries enough to write every
 * response header. Immutable and thread-safe.
 *
 * @param rule        the rule
 * @param kind        whether the rule's rate or its concurrency decided
 * @param allowed     whether this rule admits the request (a dry-run rule may say no without rejecting)
 * @param limit       the rate's permits per window, or the concurrency limit
 * @param remaining   permits left after this request (for concurrency: free permits)
 * @param reset       until a permit frees again (rates; zero for concurrency)
 * @param retryAfter  when a rejected request may try again; zero when allowed
 * @param outcome     why: the backend's answer, a backend failure, or a key that could not be resolved
 * @param cost        permits the request asked of a rate rule (1 for concurrency)
 * @param neverFits   rejected because the cost is above what the rule can ever admit: no wait would help
 * @param overLimit   admitted over the rate's nominal limit ({@code soft} or {@code elastic} throttling's overage
 *                    paid for it), so that what is given back goes back to the overage
 */
public record Decision(Rule rule, Kind kind, boolean allowed, long limit, long remaining, Duration reset,
                       Duration retryAfter, Outcome outcome, long cost, boolean neverFits, boolean overLimit) {

    /**
     * A decision within the nominal limit.
     *
     * @param rule       the rule
     * @param kind       its rate or its concurrency
     * @param allowed    whether this rule admits the request
     * @param limit      the rate's permits per window, or the concurrency limit
     * @param remaining  permits left after this request
     * @param reset      until a permit frees again
     * @param retryAfter when a rejected request may try again
     * @param outcome    why
     * @param cost       permits the request asked of a rate rule
     * @param neverFits  rejected because the cost is above what the rule can ever admit
     */
    public Decision(Rule rule, Kind kind, boolean allowed, long limit, long remaining, Duration reset,
                    Duration retryAfter, Outcome outcome, long cost, boolean neverFits) {
        this(rule, kind, allowed, limit, remaining, reset, retryAfter, outcome, cost, neverFits, false);
    }

    /** Which limit of the rule decided. */
    public enum Kind {
        /** The rule's {@code rate}. */
        RATE,
        /** The rule's {@code concurrency}. */
        CONCURRENCY
    }

    /**
     * The backend's answer: allowed, with what is left.
     *
     * @param rule      the rule
     * @param kind      its rate or its concurrency
     * @param limit     the rate's permits per window, or the concurrency limit
     * @param remaining permits left after this request
     * @param reset     until a permit frees again (zero for concurrency)
     * @return the decision
     */
    public static Decision allowed(Rule rule, Kind kind, long limit, long remaining, Duration reset) {
        return new Decision(rule, kind, true, limit, remaining, reset, Duration.ZERO, Outcome.DECIDED, 1, false);
    }

    /**
     * The backend's answer: rejected.
     *
     * @param rule       the rule
     * @param kind       its rate or its concurrency
     * @param limit      the rate's permits per window, or the concurrency limit
     * @param remaining  permits left (normally zero)
     * @param reset      until a permit frees again (zero for concurrency)
     * @param retryAfter when the request may be tried again
     * @return the decision
     */
    public static Decision rejected(Rule rule, Kind kind, long limit, long remaining, Duration reset, Duration retryAfter) {
        return new Decision(rule, kind, false, limit, remaining, reset, retryAfter, Outcome.DECIDED, 1, false);
    }

    /**
     * The backend's answer to a rate request whose cost is above anything the rule can ever admit (a dynamic
     * cost: {@code @LimitCost}, {@link KeySource#withCost}); static costs that large are refused at start-up.
     * No wait helps, so {@code retryAfter} is the rule's period: a client that retries blindly does so at most
     * once a period.
     *
     * @param rule       the rule
     * @param limit      the rate's permits per window
     * @param remaining  permits left
     * @param reset      until a permit frees again
     * @param cost       what the request asked for
     * @return the decision
     */
    public static Decision neverFits(Rule rule, long limit, long remaining, Duration reset, long cost) {
        Duration period = rule.rate().orElseThrow().period();
        return new Decision(rule, Kind.RATE, false, limit, remaining, reset, period, Outcome.DECIDED, cost, true);
    }

    /**
     * This decision for a request of {@code cost} permits.
     *
     * @param cost permits the request asked of the rule
     * @return the same decision, carrying the cost
     */
    public Decision withCost(long cost) {
        return new Decision(rule, kind, allowed, limit, remaining, reset, retryAfter, outcome, cost, neverFits, overLimit);
    }

    /**
     * This decision, admitted over the nominal limit or not.
     *
     * @param overLimit whether the overage paid for the request
     * @return the same decision, saying so
     */
    public Decision withOverLimit(boolean overLimit) {
        return new Decision(rule, kind, allowed, limit, remaining, reset, retryAfter, outcome, cost, neverFits, overLimit);
    }

    /**
     * This decision with another Remaining: what the key has once permits were given back.
     *
     * @param remaining permits left
     * @return the same decision, with {@code remaining}
     */
    public Decision withRemaining(long remaining) {
        return new Decision(rule, kind, allowed, limit, remaining, reset, retryAfter, outcome, cost, neverFits, overLimit);
    }

    /**
     * A rate rejection answered locally by the attack shield: the backend said so for this key, and nothing
     * frees before {@code wait} has passed.
     *
     * @param rule  the rule
     * @param limit the rate's permits per window
     * @param wait  until the backend may admit the key again
     * @return the decision
     */
    public static Decision shielded(Rule rule, long limit, Duration wait) {
        return rejected(rule, Kind.RATE, limit, 0, wait, wait);
    }

    /**
     * The backend could not answer in time and the rule's {@code on-backend-failure} is {@code allow}: admitted,
     * with no counts to advertise.
     *
     * @param rule  the rule
     * @param kind  its rate or its concurrency
     * @param limit the rate's permits per window, or the concurrency limit
     * @return the decision
     */
    public static Decision failedOpen(Rule rule, Kind kind, long limit) {
        return new Decision(rule, kind, true, limit, limit, Duration.ZERO, Duration.ZERO, Outcome.BACKEND_FAILURE, 1, false);
    }

    /**
     * The backend could not answer in time and the rule's {@code on-backend-failure} is {@code deny}.
     *
     * @param rule       the rule
     * @param kind       its rate or its concurrency
     * @param limit      the rate's permits per window, or the concurrency limit
     * @param retryAfter when the request may be tried again
     * @return the decision
     */
    public static Decision failedClosed(Rule rule, Kind kind, long limit, Duration retryAfter) {
        return new Decision(rule, kind, false, limit, 0, Duration.ZERO, retryAfter, Outcome.BACKEND_FAILURE, 1, false);
    }

    /**
     * The backend could not answer in time and the rule's {@code on-backend-failure} is {@code local}: this server
     * decided by its share of the limit, in memory. Its counts are this server's share, not the key's, so they are
     * not advertised.
     *
     * @param rule       the rule
     * @param kind       its rate or its concurrency
     * @param limit      the rate's permits per window, or the concurrency limit (the rule's, not the share)
     * @param allowed    whether the share admits the request
     * @param retryAfter when a rejected request may be tried again; zero when allowed
     * @param cost       permits the request asked of a rate rule (1 for concurrency)
     * @return the decision
     */
    public static Decision failedLocal(Rule rule, Kind kind, long limit, boolean allowed, Duration retryAfter, long cost) {
        return new Decision(rule, kind, allowed, limit, 0, Duration.ZERO, allowed ? Duration.ZERO : retryAfter,
                Outcome.FAILED_LOCAL, cost, false);
    }

    /**
     * The key could not be resolved and the rule's {@code on-missing-key} is {@code deny}.
     *
     * @param rule       the rule
     * @param kind       its rate or its concurrency
     * @param limit      the rate's permits per window, or the concurrency limit
     * @param retryAfter when the request may be tried again
     * @return the decision
     */
    public static Decision missingKey(Rule rule, Kind kind, long limit, Duration retryAfter) {
        return new Decision(rule, kind, false, limit, 0, Duration.ZERO, retryAfter, Outcome.MISSING_KEY, 1, false);
    }

    /** Where a decision came from. */
    public enum Outcome {
        /** The backend answered. */
        DECIDED,
        /** The backend did not answer in time; the rule's {@code on-backend-failure} decided. */
        BACKEND_FAILURE,
        /** The key could not be resolved and the rule's {@code on-missing-key} is {@code deny}. */
        MISSING_KEY,
        /**
         * The backend did not answer in time; the rule's {@code on-backend-failure} is {@code local}, and this server
         * decided by its share of the limit ({@code failed_local}).
         */
        FAILED_LOCAL
    }

    /** {@return the rule's name} */
    public String ruleName() {
        return rule.name();
    }

    /** {@return whether the rule would reject but is in dry-run, so the request goes on} */
    public boolean dryRunRejection() {
        return !allowed && rule.dryRun();
    }

    /** {@return whether this decision rejects the request} */
    public boolean rejects() {
        return !allowed && !rule.dryRun();
    }

    /** {@return the window of the rate, or zero for concurrency} */
    public Duration window() {
        return kind == Kind.RATE ? rule.rate().map(r -> r.period()).orElse(Duration.ZERO) : Duration.ZERO;
    }

    /** {@return whether the numbers come from the backend, so they may be advertised in headers} */
    public boolean hasCounts() {
        return outcome == Outcome.DECIDED;
    }

    /** {@return {@code Retry-After} in whole seconds: at least 1, and never earlier than the reset} */
    public long retryAfterSeconds() {
        long ms = Math.max(retryAfter.toMillis(), reset.toMillis());
        return Math.max(1, ceilSeconds(ms));
    }

    /** {@return the reset in whole seconds, rounded up} */
    public long resetSeconds() {
        return ceilSeconds(reset.toMillis());
    }

    static long ceilSeconds(long ms) {
        return (ms + 999) / 1000;
    }
}
