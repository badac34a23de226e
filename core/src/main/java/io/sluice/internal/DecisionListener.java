package io.sluice.internal;

import io.sluice.Decision;

/**
 * The one seam where the engine reports what it does: every decision, for which rule, and how it was made;
 * and every call to the backend. {@code Sluice.stats()} is computed from it, and metrics hang here.
 * Implementations are called on whatever thread decided, must be thread-safe, and must be cheap: they run on
 * every request.
 */
public interface DecisionListener {
    /** How a decision was made. */
    enum Source {
        /** The backend answered. */
        BACKEND,
        /** The attack shield answered locally: the key is known to be over its limit. */
        SHIELD,
        /** The backend failed or was late; {@code on-backend-failure} decided. */
        BACKEND_FAILURE,
        /** The circuit breaker was open, so the backend was not asked; {@code on-backend-failure} decided. */
        CIRCUIT_OPEN,
        /** The key could not be resolved and {@code on-missing-key=deny} rejected. */
        MISSING_KEY
    }

    /** A decision, made. */
    void decided(Decision decision, Source source);

    /** A call to the backend, made (a decision may take two: a waiting acquire and its last try). */
    void backendCalled();
}
