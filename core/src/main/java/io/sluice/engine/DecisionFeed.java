package io.sluice.engine;

import io.sluice.Decision;
import io.sluice.DecisionEvent;
import io.sluice.DecisionListener;
import io.sluice.internal.ThrottledLog;
import io.sluice.key.KeyResolver;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hands each decision to the application's {@link DecisionListener}s, off the request's thread: a bounded queue
 * and one daemon thread, started with the first listener. What does not fit is dropped and counted, so a slow
 * listener never holds a request up. Thread-safe.
 */
public final class DecisionFeed implements AutoCloseable {
    static final String THREAD_NAME = "sluice-decision-listeners";
    /** Events waiting for the listeners at most; beyond it they are dropped (a listener has fallen behind). */
    static final int QUEUE_CAPACITY = 10_000;
    /** How long closing waits for the queued events to reach the listeners. */
    private static final long DRAIN_MILLIS = 1_000;

    private final Clock clock;
    private final ThrottledLog log;
    private final List<DecisionListener> listeners = new CopyOnWriteArrayList<>();
    private final LongAdder dropped = new LongAdder();
    private volatile ThreadPoolExecutor thread;

    DecisionFeed(Clock clock, ThrottledLog log) {
        this.clock = clock;
        this.log = log;
    }

    /** Adds a listener; the returned handle removes it. */
    synchronized AutoCloseable add(DecisionListener listener) {
        if (thread == null) thread = startThread();
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Whether anyone listens: decisions are turned into events only then. */
    boolean heard() {
        return !listeners.isEmpty();
    }

    /**
     * Queues {@code decision} of the key {@code raw} (null when it could not be resolved) for the listeners; the key
     * is hashed here, on the request's thread, so the raw value never leaves it.
     */
    void publish(Decision decision, String raw) {
        if (listeners.isEmpty()) return;
        DecisionEvent event = new DecisionEvent(decision.ruleName(), decision.kind(), DecisionEvent.Result.of(decision),
                decision.rejects(), decision.cost(), decision.limit(), decision.remaining(), decision.retryAfter(),
                clock.instant(), raw == null ? null : KeyResolver.hash(raw));
        thread.execute(() -> deliver(event));
    }

    /** Events dropped because the queue was full. */
    long dropped() {
        return dropped.sum();
    }

    private void deliver(DecisionEvent event) {
        for (DecisionListener l : listeners) {
            try {
                l.onDecision(event);
            } catch (RuntimeException | LinkageError e) {
                log.warn("listener:" + l.getClass().getName(), "Decision listener " + l.getClass().getName()
                        + " failed (" + e + "); it goes on hearing decisions");
            }
        }
    }

    private ThreadPoolExecutor startThread() {
        ThreadPoolExecutor t = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(QUEUE_CAPACITY), r -> {
                    Thread daemon = new Thread(r, THREAD_NAME);
                    daemon.setDaemon(true);
                    return daemon;
                }, (r, executor) -> dropped.increment());
        return t;
    }

    /** Lets the queued events reach the listeners, for at most a second, then stops the thread. */
    @Override
    public void close() {
        ThreadPoolExecutor t = thread;
        if (t == null) return;
        t.shutdown();
        try {
            if (!t.awaitTermination(DRAIN_MILLIS, TimeUnit.MILLISECONDS)) t.shutdownNow();
        } catch (InterruptedException e) {
            t.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
