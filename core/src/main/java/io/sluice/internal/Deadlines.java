package io.sluice.internal;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deadlines for many short calls, cheaply: a call that has not answered yet joins a lock-free queue, and
 * {@link #sweep()} (run every few milliseconds by the owner's timer thread) fails the late ones and drops
 * the answered ones. Unlike a scheduled task per call, starting and ending a call wakes no thread and takes
 * no lock, which matters when every request makes one. A deadline fires up to one sweep period late.
 * Deadlines run on the monotonic {@link Ticker}, never on the wall clock.
 * Thread-safe.
 */
public final class Deadlines {
    /**
     * How many times its limit a call past its deadline may go on waiting while Redis keeps answering calls made
     * after it (or at most half a limit before it): then the store is alive and the call is only queued behind others of this client (a burst of the
     * application's own making, a machine short of CPU), which the failure policy must not mistake for an outage.
     */
    public static final int BUSY_PATIENCE = 10;
    /**
     * "Made after it" reaches back a half of the limit: the calls of one burst start a few milliseconds apart, and
     * the last of them must count its siblings. A store slower than 1.5 times the limit answers nothing that new
     * in time.
     */
    private static final long ALIVE_WINDOW_DIVISOR = 2;
    /** ... but never more than this past its own deadline (a waiting acquire's limit is long already). */
    public static final Duration BUSY_PATIENCE_MAX = Duration.ofSeconds(1);

    private record Pending(CompletableFuture<?> future, long startNanos, long deadlineNanos, long limitNanos, long limitMillis) {
    }

    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final Ticker ticker;
    /** The start of the newest call that has answered successfully (ticker nanos); its first value means none. */
    private final AtomicLong newestAnsweredStart = new AtomicLong(Long.MIN_VALUE);

    public Deadlines() {
        this(Ticker.SYSTEM);
    }

    public Deadlines(Ticker ticker) {
        this.ticker = ticker;
    }

    /**
     * The stage, or a {@link TimeoutException} once {@code limit} has passed without an answer, and no call made
     * after it has answered either (else up to {@link #BUSY_PATIENCE} times {@code limit}).
     */
    public <T> CompletableFuture<T> bound(CompletionStage<T> stage, Duration limit) {
        long start = ticker.nanos();
        CompletableFuture<T> bounded = new CompletableFuture<>();
        stage.whenComplete((v, e) -> {
            if (e != null) {
                bounded.completeExceptionally(e);
            } else {
                // Read before writing: nearly every answer is the newest, but a write per answer is not needed.
                if (newestAnsweredStart.get() - start < 0) newestAnsweredStart.accumulateAndGet(start, (a, b) -> b - a > 0 ? b : a);
                bounded.complete(v);
            }
        });
        if (!bounded.isDone()) pending.add(new Pending(bounded, start, start + limit.toNanos(), limit.toNanos(), limit.toMillis()));
        return bounded;
    }

    /** Fails every call past its deadline (unless the store is visibly answering newer calls) and forgets every answered one. */
    public void sweep() {
        long now = ticker.nanos();
        long newest = newestAnsweredStart.get();
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.future().isDone()) {
                it.remove();
            } else if (now - p.deadlineNanos() >= 0) {
                boolean alive = newest != Long.MIN_VALUE && newest - (p.startNanos() - p.limitNanos() / ALIVE_WINDOW_DIVISOR) > 0;
                long extra = Math.min((BUSY_PATIENCE - 1) * p.limitNanos(), BUSY_PATIENCE_MAX.toNanos());
                if (alive && now - p.deadlineNanos() < extra) continue;
                p.future().completeExceptionally(new TimeoutException("no answer within " + p.limitMillis() + " ms"
                        + (alive ? " (nor in the patience granted while newer calls were answered)" : "")));
                it.remove();
            }
        }
    }
}
