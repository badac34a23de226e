package io.sluice.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The one extension point between Sluice and a store of limits. Every operation is atomic in the store,
 * asynchronous, and completes with a value; it completes exceptionally only when the store failed.
 * The backend decides nothing about policy (dry-run, failure handling): it executes what it is asked.
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
     * Decides several requests for one key, in order, exactly as {@link #tryConsume} called for each of them one
     * after another at the same instant would: each answer sees the permits its predecessors took. A backend that
     * can should decide them all in one round trip (Sluice coalesces concurrent decisions for a key into one such
     * call); this default asks one after another.
     *
     * @param requests requests for the same key and algorithm, at least one, in arrival order
     * @return one answer per request, in the same order
     */
    default CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
        List<RateOutcome> answers = new ArrayList<>(requests.size());
        CompletionStage<Void> chain = CompletableFuture.completedFuture(null);
        for (RateRequest r : requests) chain = chain.thenCompose(ignored -> tryConsume(r)).thenAccept(answers::add);
        return chain.thenApply(ignored -> answers);
    }

    /**
     * Decides {@code request} as {@link #tryConsume} does and, in the same atomic step, takes up to {@code ahead}
     * more permits of cost 1 (as many as fit after it, whatever the request's own answer) for this server to hand
     * out by itself within {@code hold}; the unused ones come back through {@link #returnPrefetched}. Prefetched
     * permits count against the limit as taken from the hold's end, not its start (a log keeps them in its window
     * until {@code hold} after the window of now): however late in the hold one is used, no rolling window ever
     * admits more than the limit. A backend that cannot do this takes nothing ahead, which is this default.
     *
     * @param request the request to decide
     * @param ahead   permits to take ahead, at least 1
     * @param hold    how long this server may hand them out
     * @return the request's answer and what was taken ahead
     */
    default CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold) {
        return tryConsume(request).thenApply(o -> Prefetch.none(request, o));
    }

    /**
     * Takes up to {@code ahead} permits of cost 1 for this server to hand out within {@code hold}, as
     * {@link #tryConsumeAndPrefetch} does but with no request of its own: to refill before a server's prefetched
     * permits run out. The outcome is that of the last permit asked. A backend that cannot prefetch takes nothing,
     * which is this default.
     *
     * @param permit a request for one permit (cost 1)
     * @param ahead  permits to take, at least 1
     * @param hold   how long this server may hand them out
     * @return what was taken
     */
    default CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold) {
        return CompletableFuture.completedFuture(new Prefetch(new RateOutcome(false, 0, 0, 0), permit.withCost(1), 0, 0, null));
    }

    /**
     * Hands back {@code unused} of the permits a {@link #tryConsumeAndPrefetch} or {@link #prefetch} took ahead (the last ones it took);
     * they are free again at once.
     *
     * @param prefetch what was taken
     * @param unused   how many of them were not used, at most {@code prefetch.taken()}
     * @return completes once handed back
     */
    default CompletionStage<Void> returnPrefetched(Prefetch prefetch, long unused) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Hands back {@code request.cost()} permits an earlier {@link #tryConsume} took (an elastic request whose
     * capacity rule could not pay for its overage). Only {@link Algorithm#refundable()} algorithms support it;
     * the others complete exceptionally with {@link UnsupportedOperationException}.
     *
     * @param request the request whose permits to hand back
     * @return completes once handed back
     */
    default CompletionStage<Void> refund(RateRequest request) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(request.algorithm() + " cannot refund"));
    }

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

    /**
     * The store's own clock in epoch milliseconds, to measure this server's skew against it; completes with
     * null when the store has no clock of its own (such as an in-JVM store).
     *
     * @return the store's time, or null
     */
    default CompletionStage<Long> serverTimeMillis() {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Whether the backend has reached its store: for health checks, and for start-up to know when to stop
     * waiting ({@code sluice.await-backend}). A backend that connects in the background answers false until its
     * first connection has succeeded, and may take the question as the cue to try again after a failed attempt.
     * An in-JVM store is always connected.
     *
     * @return whether the first connection has been made
     */
    default boolean connected() {
        return true;
    }

    /**
     * Completes once the first connection to the store has succeeded (at once for a store that needs none). A
     * failed attempt does not complete it: it completes exceptionally only if the backend is closed first. A
     * backend that connects on demand retries when asked again (a decision, {@link #connected()}), so a caller
     * that waits long polls {@link #connected()} meanwhile, as start-up does.
     *
     * @return the first connection
     */
    default CompletionStage<Void> firstConnection() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    void close();
}
