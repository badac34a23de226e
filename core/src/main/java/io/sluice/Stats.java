package io.sluice;

/**
 * Counts of an engine's decisions since it started, for monitoring. A snapshot: immutable and thread-safe.
 *
 * @param backendCalls       decisions that asked the backend
 * @param failedOpen         decisions the backend could not make in time, admitted by {@code on-backend-failure=allow}
 * @param failedClosed       decisions the backend could not make in time, rejected by {@code on-backend-failure=deny}
 * @param circuitOpenSkips   of those, decisions that did not even try because the circuit breaker was open
 * @param shieldedRejections rate rejections answered locally, without a backend call, by the attack shield
 * @param droppedDecisionEvents decisions no {@link DecisionListener} heard because they fell too far behind
 */
public record Stats(long backendCalls, long failedOpen, long failedClosed, long circuitOpenSkips, long shieldedRejections,
                    long droppedDecisionEvents) {

    /** Counts of an engine without decision listeners (or none dropped). */
    public Stats(long backendCalls, long failedOpen, long failedClosed, long circuitOpenSkips, long shieldedRejections) {
        this(backendCalls, failedOpen, failedClosed, circuitOpenSkips, shieldedRejections, 0);
    }
}
