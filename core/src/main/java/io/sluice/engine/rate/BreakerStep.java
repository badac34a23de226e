package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.Decision;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The circuit breaker: while it is open the backend is not called, and the rule's failure policy decides. */
final class BreakerStep implements RateStep {
    private final BackendGuard guard;
    private final RateStep next;

    BreakerStep(BackendGuard guard, RateStep next) {
        this.guard = guard;
        this.next = next;
    }

    @Override
    public CompletionStage<Decision> decide(RateAsk ask) {
        if (guard.allows()) return next.decide(ask);
        return CompletableFuture.completedFuture(guard.circuitOpen(ask.rule(), ask.request(), ask.limit(), ask.entry()::set));
    }
}
