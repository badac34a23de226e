package io.sluice.testing;

import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** A backend that asks another for everything; a test overrides what it watches. */
public class ForwardingBackend implements LimiterBackend {
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
        return delegate.tryConsumeAll(requests);
    }

    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold) {
        return delegate.tryConsumeAndPrefetch(request, ahead, hold);
    }

    @Override
    public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold) {
        return delegate.prefetch(permit, ahead, hold);
    }

    @Override
    public CompletionStage<Void> returnPrefetched(Prefetch prefetch, long unused) {
        return delegate.returnPrefetched(prefetch, unused);
    }

    @Override
    public CompletionStage<Void> refund(RateRequest request) {
        return delegate.refund(request);
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
    public CompletionStage<Long> serverTimeMillis() {
        return delegate.serverTimeMillis();
    }

    @Override
    public boolean connected() {
        return delegate.connected();
    }

    @Override
    public CompletionStage<Void> firstConnection() {
        return delegate.firstConnection();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
