package io.sluice.internal;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;

/**
 * Deadlines for many short calls, cheaply: a call that has not answered yet joins a lock-free queue, and
 * {@link #sweep()} (run every few milliseconds by the owner's timer thread) fails the late ones and drops
 * the answered ones. Unlike a scheduled task per call, starting and ending a call wakes no thread and takes
 * no lock, which matters when every request makes one. A deadline fires up to one sweep period late.
 * Deadlines run on the monotonic {@link Ticker}, never on the wall clock.
 * Thread-safe.
 */
public final class Deadlines {
    private record Pending(CompletableFuture<?> future, long deadlineNanos, long limitMillis) {
    }

    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final Ticker ticker;

    public Deadlines() {
        this(Ticker.SYSTEM);
    }

    public Deadlines(Ticker ticker) {
        this.ticker = ticker;
    }

    /** The stage, or a {@link TimeoutException} once {@code limit} has passed without an answer. */
    public <T> CompletableFuture<T> bound(CompletionStage<T> stage, Duration limit) {
        CompletableFuture<T> bounded = new CompletableFuture<>();
        stage.whenComplete((v, e) -> {
            if (e != null) bounded.completeExceptionally(e);
            else bounded.complete(v);
        });
        if (!bounded.isDone()) pending.add(new Pending(bounded, ticker.nanos() + limit.toNanos(), limit.toMillis()));
        return bounded;
    }

    /** Fails every call past its deadline and forgets every answered one. */
    public void sweep() {
        long now = ticker.nanos();
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.future().isDone()) {
                it.remove();
            } else if (now - p.deadlineNanos() >= 0) {
                p.future().completeExceptionally(new TimeoutException("no answer within " + p.limitMillis() + " ms"));
                it.remove();
            }
        }
    }
}
