package io.sluice.spi;

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
     */
    CompletionStage<RateOutcome> tryConsume(RateRequest request);

    /**
     * Hands back {@code request.cost()} permits an earlier {@link #tryConsume} took (an elastic request whose
     * capacity rule could not pay for its overage). Only {@link Algorithm#refundable()} algorithms support it;
     * the others complete exceptionally with {@link UnsupportedOperationException}.
     */
    default CompletionStage<Void> refund(RateRequest request) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(request.algorithm() + " cannot refund"));
    }

    /** Takes one concurrency permit with a lease, waiting up to {@code wait} for one. */
    CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request);

    /** Extends a held permit's lease by another {@code lease}; false when the permit is gone. */
    CompletionStage<Boolean> renew(LeaseRequest request, String permitId);

    /** Returns a permit; true the first time, false for a permit already returned or expired. */
    CompletionStage<Boolean> release(LeaseRequest request, String permitId);

    /** Permits of the semaphore that are free now (for monitoring and tests). */
    CompletionStage<Integer> available(LeaseRequest request);

    /**
     * The store's own clock in epoch milliseconds, to measure this server's skew against it; completes with
     * null when the store has no clock of its own (such as an in-JVM store).
     */
    default CompletionStage<Long> serverTimeMillis() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    void close();
}
