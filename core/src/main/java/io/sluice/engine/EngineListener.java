package io.sluice.engine;

import io.sluice.Decision;
import io.sluice.rule.Rule;

import java.util.function.BooleanSupplier;

/**
 * The one seam where the engine reports what it does: every decision, for which rule, and how it was made;
 * every rule skipped for want of a key (or for a plan without limit), and every rule a request is exempt from; every call to the backend and how long it took; every concurrency
 * permit this server takes and returns; and, once, the circuit breaker's state for gauges to read.
 * {@code Sluice.stats()} is computed from it, and the Micrometer meters hang here. Implementations are called
 * on whatever thread decided, must be thread-safe, and must be cheap: they run on every request.
 */
public interface EngineListener {
    /** How a decision was made. */
    enum Source {
        /** The backend answered. */
        BACKEND,
        /** The attack shield answered locally: the key is known to be over its limit. */
        SHIELD,
        /** Permits this server prefetched from the key paid for it, without a round trip ({@code prefetch}). */
        PREFETCH,
        /** The backend failed or was late; {@code on-backend-failure} decided. */
        BACKEND_FAILURE,
        /** The circuit breaker was open, so the backend was not asked; {@code on-backend-failure} decided. */
        CIRCUIT_OPEN,
        /**
         * The rule rejected without the backend's answer: a cost above anything it ever admits, or arguments the
         * backend refused for this request alone (never {@code on-backend-failure}).
         */
        RULE,
        /** The key could not be resolved and {@code on-missing-key=deny} rejected. */
        MISSING_KEY
    }

    /** How a backend call ended. */
    enum CallOutcome {
        /** The backend answered. */
        SUCCESS,
        /** The backend answered with an error. */
        ERROR,
        /** Sluice's deadline passed first. */
        TIMEOUT
    }

    /** A decision, made. */
    void decided(Decision decision, Source source);

    /** A call to the backend, made (a decision may take two: a waiting acquire and its last try). */
    void backendCalled();

    /**
     * A rule that applied was not checked: its key could not be resolved (an anonymous user for
     * {@code key=user}, say) and its {@code on-missing-key} is {@code skip}.
     */
    default void skipped(Rule rule, Decision.Kind kind) {
    }

    /** A rule that applied was not checked: the request is one its {@code exempt} names. */
    default void exempt(Rule rule, Decision.Kind kind) {
    }

    /** A call reported by {@link #backendCalled()} has ended, {@code nanos} after it was made. */
    default void backendAnswered(CallOutcome outcome, long nanos) {
    }

    /** This server took a concurrency permit of the rule; it holds it until {@link #permitReturned}. */
    default void permitTaken(Rule rule) {
    }

    /** This server gave back (or stopped renewing) a permit reported by {@link #permitTaken}. */
    default void permitReturned(Rule rule) {
    }

    /** Once, at start: whether the circuit breaker in front of the backend is open now, for gauges to read. */
    default void watchCircuit(BooleanSupplier open) {
    }

    /** The engine has closed: let go of what was registered for it. */
    default void engineClosed() {
    }
}
