package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.Decision;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** A step's wait for something else in flight on its key (a call, hand-backs), bounded by the request's deadline. */
final class Waits {
    private Waits() {
    }

    /**
     * Goes on with {@code then} once {@code wait} (never a failure) has completed within {@code within}; past it,
     * the backend is too slow and the rule's failure policy decides {@code ask}.
     */
    static CompletionStage<Decision> then(BackendGuard guard, CompletableFuture<Void> wait, Duration within, RateAsk ask,
                                          Supplier<CompletionStage<Decision>> then) {
        return guard.bounded(wait, within).handle((v, e) -> e).thenCompose(late -> late == null ? then.get()
                : CompletableFuture.completedFuture(guard.failure(ask.rule(), ask.request(), ask.limit(), late, ask.entry()::set)));
    }
}
