package io.sluice;

/**
 * Counts of an engine's decisions since it started, for monitoring. A snapshot: immutable and thread-safe.
 *
 * @param backendCalls       decisions that asked the backend
 * @param failedOpen         decisions the backend could not make in time, admitted by {@code on-backend-failure=allow}
 * @param failedClosed       decisions the backend could not make in time, rejected by {@code on-backend-failure=deny}
 * @param circuitOpenSkips   of those, decisions that did not even try because the circuit breaker was open
 * @param shieldedRejections rate rejections answered locally, without a backend call, by the attack shield
 */
public record Stats(long backendCalls, long failedOpen, long failedClosed, long circuitOpenSkips, long shieldedRejections) {
}
