package io.sluice.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One call at a time per key, and everything that arrives meanwhile in the next call: while a call for a key is
 * in flight, later items for that key queue, and when it ends they go together, in arrival order, as one batch
 * (at most {@code maxBatch}; more wait for the call after). No timer and no added latency: an idle key's item
 * is sent at once, alone; only items that would otherwise have overtaken a call in flight wait for it.
 *
 * <p>The {@link Dispatch} sends a batch and answers when that call has ended, however it ended; it may answer
 * some items itself and send only the rest. Batches of one key are dispatched one after another, never
 * concurrently, so the dispatch sees the answers of a key's previous batch before it sends the next. Thread-safe.
 *
 * @param <T> what one queued item is
 */
public final class Coalescer<T> {
    /**
     * Sends one batch of a key's items; the stage ends when the call has ended, with its failure (null when it
     * succeeded). {@code behind} is the failure of the call this batch waited for (null when that call succeeded,
     * or when the key was idle): items that queued behind a failed call may be failed with it, unsent.
     */
    @FunctionalInterface
    public interface Dispatch<T> {
        CompletionStage<Throwable> send(String key, List<T> batch, Throwable behind);
    }

    private final int maxBatch;
    private final Dispatch<T> dispatch;
    /** A key is here exactly while a call for it is in flight; its deque holds the items waiting for that call. */
    private final ConcurrentHashMap<String, ArrayDeque<T>> inFlight = new ConcurrentHashMap<>();

    public Coalescer(int maxBatch, Dispatch<T> dispatch) {
        if (maxBatch < 1) throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
        this.maxBatch = maxBatch;
        this.dispatch = dispatch;
    }

    /** Sends {@code item} now if no call for {@code key} is in flight, else queues it for the next one. */
    public void submit(String key, T item) {
        // Written only inside compute, which runs once per call and excludes every other compute of this key.
        Object[] idle = new Object[1];
        inFlight.compute(key, (k, waiting) -> {
            if (waiting == null) {
                idle[0] = item;
                return new ArrayDeque<>(2);
            }
            waiting.add(item);
            return waiting;
        });
        if (idle[0] != null) run(key, List.of(item), null);
    }

    /** Dispatches batches of the key until one is in flight, or the key has nothing left. */
    private void run(String key, List<T> batch, Throwable behind) {
        while (batch != null) {
            CompletableFuture<Throwable> call;
            try {
                call = dispatch.send(key, batch, behind).toCompletableFuture();
            } catch (RuntimeException e) {
                // A dispatch that throws has ended its call: the key must not stay in flight for ever.
                call = CompletableFuture.completedFuture(e);
            }
            if (!call.isDone()) {
                call.whenComplete((failure, e) -> run(key, next(key), e != null ? e : failure));
                return;
            }
            behind = call.handle((failure, e) -> e != null ? e : failure).join();
            batch = next(key);
        }
    }

    /** The items waiting for the call that just ended, at most {@code maxBatch}; null (and the key idle) if none. */
    private List<T> next(String key) {
        List<T> batch = new ArrayList<>();
        inFlight.compute(key, (k, waiting) -> {
            if (waiting == null || waiting.isEmpty()) return null;
            while (batch.size() < maxBatch && !waiting.isEmpty()) batch.add(waiting.poll());
            return waiting;
        });
        return batch.isEmpty() ? null : batch;
    }

    /** Keys with a call in flight (for tests). */
    public int keysInFlight() {
        return inFlight.size();
    }
}
