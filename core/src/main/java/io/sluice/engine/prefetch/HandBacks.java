package io.sluice.engine.prefetch;

import io.sluice.spi.PrefetchUse;
import io.sluice.spi.Prefetching;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Sends the unused permits of stocks back to the backend and keeps, by key, those not yet answered: a key's next
 * backend call waits for them, since on another connection it could overtake them and find their permits still
 * taken. Thread-safe.
 */
final class HandBacks {
    private final Prefetching backend;
    /** Told the key of every hand-back: what this server knew of the key's remaining permits is out of date. */
    private final Consumer<String> handedBack;
    private final ConcurrentHashMap<String, CompletableFuture<Void>> byKey = new ConcurrentHashMap<>();
    /** Every hand-back not yet answered (a test's sweep waits for them). */
    private final Set<CompletableFuture<Void>> all = ConcurrentHashMap.newKeySet();

    HandBacks(Prefetching backend, Consumer<String> handedBack) {
        this.backend = backend;
        this.handedBack = handedBack;
    }

    /**
     * Hands back what is left of {@code s}, which no request uses any more. Called under the lock of the slot it
     * was taken out of, so that a request that finds the stock gone finds its hand-back in {@link #inFlight}.
     */
    CompletionStage<Void> send(Stock s) {
        return send(s, credited -> { });
    }

    /**
     * As {@link #send(Stock)}, telling {@code credited} how much the key's remaining rose (what the backend says it
     * credited: less than the rest for a window counter's stock whose window has ended) before the hand-back counts as
     * answered, so that the key's next call, which waits for it, comes after. Not told when the hand-back failed.
     */
    CompletionStage<Void> send(Stock s, LongConsumer credited) {
        // Read by the thread that took the stock out of its slot, under the slot's lock: no request uses it now.
        long rest = s.left;
        s.left = 0;
        // A log's stock goes back even used up: its used permits then count from their uses, not the hold's end.
        List<PrefetchUse> used = s.countsUses() ? s.uses.drain(s.until) : List.of();
        if (rest == 0 && used.isEmpty()) return CompletableFuture.completedFuture(null);
        CompletableFuture<Void> back;
        try {
            // Best effort: a permit that does not come back is taken until its window passes, as if used (and a use
            // not told counts from the hold's end).
            back = backend.returnPrefetched(s.prefetch, rest, used).toCompletableFuture()
                    .thenAccept(credited::accept).exceptionally(ignored -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(null);
        }
        return track(s.prefetch.request().key(), back);
    }

    /**
     * Keeps {@code back} (permits going back to the key in the backend: a hand-back, or a refund) among the key's
     * hand-backs until it is answered, so that the key's next call waits for it.
     */
    CompletableFuture<Void> track(String key, CompletableFuture<Void> back) {
        all.add(back);
        byKey.compute(key, (k, before) -> before == null || before.isDone() ? back : CompletableFuture.allOf(before, back));
        back.whenComplete((v, e) -> {
            handedBack.accept(key);
            all.remove(back);
            byKey.computeIfPresent(key, (k, pending) -> pending.isDone() ? null : pending);
        });
        return back;
    }

    /** The key's hand-backs sent and not yet answered; null when none are. */
    CompletableFuture<Void> inFlight(String key) {
        CompletableFuture<Void> pending = byKey.get(key);
        return pending == null || pending.isDone() ? null : pending;
    }

    /** Completes once every hand-back sent so far has been answered. */
    CompletableFuture<Void> allAnswered() {
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
    }
}
