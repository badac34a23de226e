package io.sluice.engine.rate;

import io.sluice.Decision;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A leaky bucket's queued request is admitted at its slot: the decision completes then, from the engine's thread
 * (at most {@code queue} slots ahead, which the rule bounds). A filter's request waits for it on its own thread; a
 * {@code CompletionStage} caller holds no thread meanwhile. Thread-safe.
 */
final class LeakySlot {
    /** Runs a task later; false when it cannot (the engine is closing): the decision then completes at once. */
    @FunctionalInterface
    interface Later {
        boolean run(Runnable task, long delayMillis);
    }

    private final Later later;

    LeakySlot(Later later) {
        this.later = later;
    }

    /** {@code d}, completed {@code delayMillis} from now. */
    CompletionStage<Decision> at(Decision d, long delayMillis) {
        CompletableFuture<Decision> slot = new CompletableFuture<>();
        if (!later.run(() -> slot.complete(d), delayMillis)) slot.complete(d);
        return slot;
    }
}
