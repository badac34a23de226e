package io.sluice.testing;

import io.sluice.spi.Entry;
import io.sluice.spi.Batching;
import io.sluice.spi.Connecting;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.Prefetching;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.Refunding;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A backend that asks another for everything; a test overrides what it watches. A capability the other lacks is
 * answered as the engine does without it (its store's clock is not forwarded: the engine measures no skew).
 */
public class ForwardingBackend implements LimiterBackend, Batching, Prefetching, Refunding, Connecting {
    protected final LimiterBackend delegate;

    public ForwardingBackend(LimiterBackend delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
        return delegate.tryConsume(request);
    }

    @Override
    public CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
        return (delegate instanceof Batching b ? b : Batching.oneAfterAnother(delegate)).tryConsumeAll(requests);
    }

    /** What the engine calls: a test that holds or counts prefetches overrides this one. */
    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        return delegate instanceof Prefetching p ? p.tryConsumeAndPrefetch(request, ahead, hold, usedUp)
                : delegate.tryConsume(request).thenApply(o -> Prefetch.none(request, o));
    }

    /** What the engine calls: a test that holds or counts refills overrides this one. */
    @Override
    public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        return delegate instanceof Prefetching p ? p.prefetch(permit, ahead, hold, usedUp)
                : CompletableFuture.completedFuture(Prefetch.nothing(permit));
    }

    /** What the engine calls to hand a stock back: a test that watches hand-backs overrides this one. */
    @Override
    public CompletionStage<Long> returnPrefetched(Prefetch prefetch, long unused, List<PrefetchUse> used) {
        return delegate instanceof Prefetching p ? p.returnPrefetched(prefetch, unused, used)
                : CompletableFuture.completedFuture(0L);
    }

    @Override
    public CompletionStage<Void> refund(RateRequest request) {
        return delegate instanceof Refunding r ? r.refund(request)
                : CompletableFuture.failedFuture(new UnsupportedOperationException("cannot refund"));
    }

    @Override
    public CompletionStage<Void> refund(RateRequest request, Entry entry) {
        return delegate instanceof Refunding r ? r.refund(request, entry)
                : CompletableFuture.failedFuture(new UnsupportedOperationException("cannot refund"));
    }

    /**
     * The delegate's own credit (a window that has ended credits nothing), not the default's whole cost. A subclass
     * that watches give-backs by overriding {@link #refund(RateRequest, Entry)} overrides this too: the engine asks
     * this one.
     */
    @Override
    public CompletionStage<Long> refundCredited(RateRequest request, Entry entry) {
        return delegate instanceof Refunding r ? r.refundCredited(request, entry)
                : CompletableFuture.failedFuture(new UnsupportedOperationException("cannot refund"));
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, String permitId) {
        return delegate.renew(request, permitId);
    }

    @Override
    public CompletionStage<Boolean> release(LeaseRequest request, String permitId) {
        return delegate.release(request, permitId);
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest request) {
        return delegate.available(request);
    }

    @Override
    public boolean connected() {
        return !(delegate instanceof Connecting c) || c.connected();
    }

    @Override
    public CompletionStage<Void> firstConnection() {
        return delegate instanceof Connecting c ? c.firstConnection() : CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
