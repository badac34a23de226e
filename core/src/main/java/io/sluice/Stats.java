package io.sluice;

/**
 * Counts of an engine's decisions since it started, for monitoring. A snapshot: immutable and thread-safe.
 *
 * @param backendCalls       decisions that asked the backend
 * @param failedOpen         decisions the backend could not make in time, admitted by {@code on-backend-failure=allow}
 * @param failedClosed       decisions the backend could not make in time, rejected by {@code on-backend-failure=deny}
 * @param circuitOpenSkips   of those (and of {@code failedLocal}), decisions that did not even try because the
 *                           circuit breaker was open
 * @param shieldedRejections rate rejections answered locally, without a backend call, by the attack shield
 * @param failedLocal        decisions the backend could not make in time, made by this server's share of the limit
 *                           ({@code on-backend-failure=local}), admitted or rejected
 * @param droppedDecisionEvents decisions no {@link DecisionListener} heard because they fell too far behind
 */
public record Stats(long backendCalls, long failedOpen, long failedClosed, long circuitOpenSkips, long shieldedRejections,
                    long failedLocal, long droppedDecisionEvents) {

    /**
     * Counts without local decisions or listeners, as before {@code on-backend-failure=local} existed.
     *
     * @param backendCalls       decisions that asked the backend
     * @param failedOpen         decisions admitted by {@code on-backend-failure=allow}
     * @param failedClosed       decisions rejected by {@code on-backend-failure=deny}
     * @param circuitOpenSkips   of those, decisions that did not try because the circuit breaker was open
     * @param shieldedRejections rate rejections answered by the attack shield
     */
    public Stats(long backendCalls, long failedOpen, long failedClosed, long circuitOpenSkips, long shieldedRejections) {
        this(backendCalls, failedOpen, failedClosed, circuitOpenSkips, shieldedRejections, 0, 0);
    }
}
