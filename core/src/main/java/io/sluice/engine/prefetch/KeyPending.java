package io.sluice.engine.prefetch;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** Futures of something in flight per key (calls not yet landed), kept until done. Thread-safe. */
final class KeyPending {
    private final ConcurrentHashMap<String, CompletableFuture<Void>> byKey = new ConcurrentHashMap<>();

    /** Keeps {@code pending} among the key's until it completes. */
    void track(String key, CompletableFuture<Void> pending) {
        byKey.compute(key, (k, before) -> before == null || before.isDone() ? pending : CompletableFuture.allOf(before, pending));
        pending.whenComplete((v, e) -> byKey.computeIfPresent(key, (k, all) -> all.isDone() ? null : all));
    }

    /** Completes once everything of the key tracked so far has; null when nothing is in flight. */
    CompletableFuture<Void> inFlight(String key) {
        CompletableFuture<Void> pending = byKey.get(key);
        return pending == null || pending.isDone() ? null : pending;
    }
}
