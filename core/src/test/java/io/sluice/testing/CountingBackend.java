package io.sluice.testing;

import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Batching;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An in-memory backend that counts decision calls and can be switched "down" (every decision fails) or "silent"
 * (no decision is ever answered, until the test completes {@link #pendingAcquires} by hand); records releases;
 * and can hold its answers (and releases) until the test opens it, as a slow Redis would.
 */
public final class CountingBackend implements LimiterBackend, Batching {
    public final AtomicInteger calls = new AtomicInteger();
    public final AtomicBoolean down = new AtomicBoolean();
    public final AtomicBoolean silent = new AtomicBoolean();
    /** Waiting acquires (a wait above zero) are never answered, as a wait the backend ends too late; others are. */
    public final AtomicBoolean waitsNeverEnd = new AtomicBoolean();
    public final List<CompletableFuture<LeaseOutcome>> pendingAcquires = new CopyOnWriteArrayList<>();
    /** The request of each of {@link #pendingAcquires}, in the same order. */
    public final List<LeaseRequest> pendingRequests = new CopyOnWriteArrayList<>();
    public final List<String> released = new CopyOnWriteArrayList<>();
    /** The size of each batch decided by {@link #tryConsumeAll}. */
    public final List<Integer> batches = new CopyOnWriteArrayList<>();
    private final InMemoryBackend memory;
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

    public CountingBackend(Clock clock) {
        this.memory = new InMemoryBackend(clock);
    }

    /** From now on, answers wait for {@link #open()}. */
    public void hold() {
        gate = new CompletableFuture<>();
    }

    /** Answers everything held, and everything after. */
    public void open() {
        gate.complete(null);
    }

    private <T> CompletionStage<T> whenOpen(Supplier<CompletionStage<T>> answer) {
        CompletableFuture<Void> g = gate;
        return g.isDone() ? answer.get() : g.thenCompose(ignored -> answer.get());
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
        calls.incrementAndGet();
        if (silent.get()) return new CompletableFuture<>();
        return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("down")) : whenOpen(() -> memory.tryConsume(request));
    }

    /** One call for the whole batch, as one script call decides them all on Redis. */
    @Override
    public CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
        calls.incrementAndGet();
        batches.add(requests.size());
        if (silent.get()) return new CompletableFuture<>();
        return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("down")) : whenOpen(() -> Batching.oneAfterAnother(memory).tryConsumeAll(requests));
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
        calls.incrementAndGet();
        if (silent.get() || waitsNeverEnd.get() && !request.waitTime().isZero()) {
            CompletableFuture<LeaseOutcome> pending = new CompletableFuture<>();
            pendingRequests.add(request);
            pendingAcquires.add(pending);
            return pending;
        }
        return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("down")) : whenOpen(() -> memory.tryAcquire(request));
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, String permitId) {
        return memory.renew(request, permitId);
    }

    @Override
    public CompletionStage<Boolean> release(LeaseRequest request, String permitId) {
        released.add(permitId);
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
