package io.sluice;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A backend call's answer held from its caller until the test opens the gate, as a busy network would hold it; the
 * test can wait until the backend has answered ({@link #answered}). Thread-safe.
 */
final class Gate {
    private final CompletableFuture<Void> answered = new CompletableFuture<>();
    private final CompletableFuture<Void> open = new CompletableFuture<>();

    /** The call, its answer told to the caller once the gate is open. */
    <T> CompletionStage<T> hold(CompletionStage<T> call) {
        call.whenComplete((v, e) -> answered.complete(null));
        return call.thenCombine(open, (v, ignored) -> v);
    }

    /** Waits until the backend has answered the held call (or failed it). */
    void answered() {
        answered.join();
    }

    void open() {
        open.complete(null);
    }

    /** Waits for the backend's answer, then lets it reach the caller. */
    void pass() {
        answered();
        open();
    }
}
