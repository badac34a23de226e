package io.sluice.engine;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Sluice's one daemon thread: lease renewals, the deadline sweep and clock-skew measurements. {@link #close}
 * returns once the thread has really ended, so a container undeploying the application finds no thread of it
 * still running. Thread-safe.
 */
public final class EngineScheduler implements AutoCloseable {
    static final String THREAD_NAME = "sluice-scheduler";
    /** How long {@link #close} waits for the thread to end. */
    private static final long JOIN_MILLIS = 5_000;

    private final ScheduledThreadPoolExecutor executor;
    private final Queue<Thread> threads = new ConcurrentLinkedQueue<>();

    public EngineScheduler() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            threads.add(t);
            return t;
        });
        // Lease renewals are cancelled when their request ends; drop them from the queue at once.
        executor.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code task} after {@code initialMillis}, then {@code delayMillis} after each run ends. */
    public ScheduledFuture<?> withFixedDelay(Runnable task, long initialMillis, long delayMillis) {
        return executor.scheduleWithFixedDelay(task, initialMillis, delayMillis, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} every {@code periodMillis}, the first time after one period. */
    public ScheduledFuture<?> atFixedRate(Runnable task, long periodMillis) {
        return executor.scheduleAtFixedRate(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} once after {@code delayMillis}; false when the engine is closing. */
    public boolean later(Runnable task, long delayMillis) {
        if (executor.isShutdown()) return false;
        try {
            executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
            return true;
        } catch (RejectedExecutionException closing) {
            return false;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            for (Thread t : threads) t.join(JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
