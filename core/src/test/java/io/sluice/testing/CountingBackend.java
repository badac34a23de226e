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

/**
 * An in-memory backend that counts decision calls, can be switched "down" (every decision fails), and can
 * hold its answers (and releases) until the test opens it, as a slow Redis would.
 */
public final class CountingBackend implements LimiterBackend {
    public final AtomicInteger calls = new AtomicInteger();
    public final AtomicInteger releases = new AtomicInteger();
    public final AtomicBoolean down = new AtomicBoolean();
    private final InMemoryBackend memory;
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

    /** From now on, answers wait for {@link #open()}. */
    public void hold() {
        gate = new CompletableFuture<>();
    }

    /** Answers everything held, and everything after. */
    public void open() {
        gate.complete(null);
    }

    private <T> CompletionStage<T> whenOpen(java.util.function.Supplier<CompletionStage<T>> answer) {
        CompletableFuture<Void> g = gate;
        return g.isDone() ? answer.get() : g.thenCompose(ignored -> answer.get());
    }

    public CountingBackend(Clock clock) {
        this.memory = new InMemoryBackend(clock);
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
        calls.incrementAndGet();
        return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("down")) : whenOpen(() -> memory.tryConsume(request));
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
        calls.incrementAndGet();
        return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("down")) : whenOpen(() -> memory.tryAcquire(request));
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, String permitId) {
        return memory.renew(request, permitId);
    }

    @Override
    public CompletionStage<Boolean> release(LeaseRequest request, String permitId) {
        releases.incrementAndGet();
        return whenOpen(() -> memory.release(request, permitId));
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
