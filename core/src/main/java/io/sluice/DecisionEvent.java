package io.sluice;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * One decision of one rule for one request, as {@link DecisionListener}s hear it. It names the key only by its hash,
 * the same one the key's Redis entries are named by, so that an audit log can follow a key without holding who it
 * is. Immutable.
 *
 * @param rule       the rule's name
 * @param type       whether its rate or its concurrency decided
 * @param result     how it was decided, as the meter {@code sluice.requests} tags it
 * @param rejected   whether this decision rejected the request (a dry-run rule's never does)
 * @param cost       permits asked (1 for concurrency)
 * @param limit      the limit the request was judged by (its plan's, when it has one)
 * @param remaining  permits left after the decision (free permits, for concurrency); 0 when Redis did not answer
 * @param retryAfter when a rejected request may try again; zero when admitted
 * @param time       when it was decided, on the engine's clock
 * @param keyHash    the key's hash (16 bytes of SHA-256, base64url); null when the key could not be resolved
 */
public record DecisionEvent(String rule, Decision.Kind type, Result result, boolean rejected, long cost, long limit,
                            long remaining, Duration retryAfter, Instant time, String keyHash) {

    /** How a decision was made, and what it told its request. */
    public enum Result {
        /** Admitted by the rule's limit. */
        ALLOWED,
        /** Rejected by the rule's limit (or its {@code on-missing-key=deny}). */
        REJECTED,
        /** A dry-run rule would have rejected it; the request went on. */
        DRY_RUN_REJECTED,
        /** Redis could not decide in time; {@code on-backend-failure=allow} admitted it. */
        FAILED_OPEN,
        /** Redis could not decide in time; {@code on-backend-failure=deny} rejected it. */
        FAILED_CLOSED,
        /** Redis could not decide in time; this server's share of the limit decided ({@code on-backend-failure=local}). */
        FAILED_LOCAL;

        /** {@return the name as meters and JSON spell it, such as {@code dry_run_rejected}} */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * How a decision was made.
         *
         * @param decision a rule's decision for a request
         * @return its result
         */
        public static Result of(Decision decision) {
            if (decision.outcome() == Decision.Outcome.FAILED_LOCAL) return FAILED_LOCAL;
            if (decision.outcome() == Decision.Outcome.BACKEND_FAILURE) return decision.allowed() ? FAILED_OPEN : FAILED_CLOSED;
            if (decision.allowed()) return ALLOWED;
            return decision.rule().dryRun() ? DRY_RUN_REJECTED : REJECTED;
        }
    }
}
