package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * The one extension point between Sluice and a store of limits. Every operation is atomic in the store,
 * asynchronous, and completes with a value; it completes exceptionally only when the store failed.
 * The backend decides nothing about policy (dry-run, failure handling): it executes what it is asked.
 *
 * <p>This interface holds what every backend must do. What only some can do is a capability of its own, which a
 * backend implements beside this one and the engine detects once, when it is built: {@link Batching} (several
 * decisions of a key in one call), {@link Prefetching} (permits taken ahead for a server to hand out),
 * {@link Refunding} (permits handed back), {@link ServerClock} (the store's own clock) and {@link Connecting} (a
 * store reached over a connection). Without one, the engine does without it, explicitly.
 *
 * <p>Implementations are thread-safe.
 */
public interface LimiterBackend extends AutoCloseable {

    /**
     * Takes {@code request.cost()} permits if the request's algorithm has that many free under its effective
     * limit, and reports what the headers need; a rejection takes nothing.
     *
     * @param request the rate, its algorithm, its key and the cost
     * @return allowed, remaining, reset and retry-after (and a leaky bucket's delay), in one answer
     */
    CompletionStage<RateOutcome> tryConsume(RateRequest request);

    /**
     * Takes one concurrency permit with a lease, under the request's permit id, waiting up to the request's
     * {@code wait} for one. Judged by the request's own limit against the permits held, whatever limits they were
     * taken under (one semaphore per key, a limit per plan). An id already held takes nothing more; an id released
     * before this acquire arrived (within a lease) takes nothing.
     *
     * @param request the semaphore's key, its limit, the lease, the wait and the permit id
     * @return the permit acquired (the request's id), or none, and the permits still free
     */
    CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request);

    /**
     * Extends a held permit's lease by another {@code lease}.
     *
     * @param request  the request the permit was acquired with
     * @param permitId the permit, from {@link LeaseOutcome#permitId()}
     * @return true when renewed, false when the permit is gone (released or expired)
     */
    CompletionStage<Boolean> renew(LeaseRequest request, String permitId);

    /**
     * Returns a permit. A permit not held (returned already, expired, or whose acquire has not arrived yet) leaves a
     * tombstone for one lease, so that an acquire of that id arriving later takes nothing: the engine releases a
     * permit it gave up waiting for whatever the store did with it.
     *
     * @param request  the request the permit was acquired with
     * @param permitId the permit, from {@link LeaseOutcome#permitId()} or {@link LeaseRequest#permitId()}
     * @return true the first time, false for a permit already returned, expired or not held
     */
    CompletionStage<Boolean> release(LeaseRequest request, String permitId);

    /**
     * Permits of the semaphore that are free now (for monitoring and tests).
     *
     * @param request the semaphore's key and limit
     * @return the free permits
     */
    CompletionStage<Integer> available(LeaseRequest request);

    @Override
    void close();
}
