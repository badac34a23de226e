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
 * @param result     what the request was told, as the meter {@code sluice.requests} tags it
 * @param cost       permits asked (1 for concurrency)
 * @param limit      the limit the request was judged by (its plan's, when it has one)
 * @param remaining  permits left after the decision (free permits, for concurrency); 0 when Redis did not answer
 * @param retryAfter when a rejected request may try again; zero when admitted
 * @param time       when it was decided, on the engine's clock
 * @param keyHash    the key's hash (16 bytes of SHA-256, base64url); null when the key could not be resolved
 */
public record DecisionEvent(String rule, Decision.Kind type, Result result, long cost, long limit, long remaining,
                            Duration retryAfter, Instant time, String keyHash) {

    /** What a decision told its request. */
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
        FAILED_CLOSED;

        /** {@return the name as meters and JSON spell it, such as {@code dry_run_rejected}} */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** {@return what {@code decision} told its request} */
        public static Result of(Decision decision) {
            if (decision.outcome() == Decision.Outcome.BACKEND_FAILURE) return decision.allowed() ? FAILED_OPEN : FAILED_CLOSED;
            if (decision.allowed()) return ALLOWED;
            return decision.rule().dryRun() ? DRY_RUN_REJECTED : REJECTED;
        }
    }

    /** {@return whether the request was rejected by this decision} */
    public boolean rejected() {
        return result == Result.REJECTED || result == Result.FAILED_CLOSED;
    }
}
