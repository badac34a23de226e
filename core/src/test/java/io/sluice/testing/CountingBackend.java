package io.sluice.testing;

import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory backend that counts decision calls and can be switched "down" (every decision fails). */
public final class CountingBackend implements LimiterBackend {
    public final AtomicInteger calls = new AtomicInteger();
    public final AtomicBoolean down = new AtomicBoolean();
    private final InMemoryBackend memory;

    public CountingBackend(Clock clock) {
        this.memory = new InMemoryBackend(clock);
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
        calls.incrementAndGet();
        return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("down")) : memory.tryConsume(request);
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
        calls.incrementAndGet();
        return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("down")) : memory.tryAcquire(request);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, String permitId) {
        return memory.renew(request, permitId);
    }

    @Override
    public CompletionStage<Boolean> release(LeaseRequest request, String permitId) {
        return memory.release(request, permitId);
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest request) {
        return memory.available(request);
    }

    @Override
    public void close() {
        memory.close();
    }
}
