package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.EngineListener;
import io.sluice.Decision;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The bottom of a rate path: the backend call. Sends the request through the rule's {@link RateCall} and decides
 * from its answer: the backend's, counting the key's stock on this server in what remains; the shield's, for a
 * request screened in its lane; or, for a failed or late call, the failure policy's, whose rejection undoes what
 * the backend admits when it answers after all. An admitted request waits for its leaky-bucket slot.
 */
final class BackendStep implements RateStep {
    /** What remains of a key as its decision reports it, from the backend's answer. */
    @FunctionalInterface
    interface Remaining {
        /** What the backend says: nothing held elsewhere. */
        Remaining BACKEND = (request, backendRemaining, resetMillis) -> backendRemaining;

        long of(RateRequest request, long backendRemaining, long resetMillis);
    }

    private final RateCall call;
    private final Remaining remaining;
    private final LeakySlot slot;
    private final BackendGuard guard;
    private final Refunds refunds;
    private final EngineListener listener;

    BackendStep(RateCall call, Remaining remaining, LeakySlot slot, BackendGuard guard, Refunds refunds, EngineListener listener) {
        this.call = call;
        this.remaining = remaining;
        this.slot = slot;
        this.guard = guard;
        this.refunds = refunds;
        this.listener = listener;
    }

    @Override
    public CompletionStage<Decision> decide(RateAsk ask) {
        RateCall.Sent sent = call.send(ask);
        return sent.answer().handle((RateAnswer a, Throwable e) -> {
            if (e != null) {
                Decision d = failure(guard, ask, e);
                sent.late().thenAccept(late -> refunds.undoIfDenied(ask, d, late, sent.capacity()));
                return CompletableFuture.completedFuture(d);
            }
            if (a instanceof RateAnswer.Screened s) {
                Decision d = Shield.shielded(ask.rule(), ask.limit(), s.remaining(), s.millisLeft());
                listener.decided(d, EngineListener.Source.SHIELD);
                return CompletableFuture.completedFuture(d);
            }
            RateOutcome o = withRemaining(ask.request(), ((RateAnswer.Answered) a).outcome());
            ask.took(o);
            Decision d = decision(ask, o);
            listener.decided(d, EngineListener.Source.BACKEND);
            return o.allowed() && o.delayMillis() > 0 ? slot.at(d, o.delayMillis()) : CompletableFuture.completedFuture(d);
        }).thenCompose(decided -> decided);
    }

    private RateOutcome withRemaining(RateRequest request, RateOutcome o) {
        long left = remaining.of(request, o.remaining(), o.resetMillis());
        return left == o.remaining() ? o
                : new RateOutcome(o.allowed(), left, o.resetMillis(), o.retryAfterMillis(), o.delayMillis(), o.overLimit(), o.entry());
    }

    /** A failed call's decision: the rule's rejection when the request itself was refused, else on-backend-failure. */
    static Decision failure(BackendGuard guard, RateAsk ask, Throwable e) {
        return BackendGuard.causedByRequest(e) ? guard.refused(ask.rule(), ask.limit(), ask.cost(), e)
                : guard.failure(ask.rule(), ask.request(), ask.limit(), e, ask.entry()::set);
    }

    /** The decision the backend's answer {@code o} makes. */
    static Decision decision(RateAsk ask, RateOutcome o) {
        Duration reset = Duration.ofMillis(o.resetMillis());
        if (o.allowed()) {
            return Decision.allowed(ask.rule(), Decision.Kind.RATE, ask.limit(), o.remaining(), reset).withCost(ask.cost())
                    .withOverLimit(o.overLimit());
        }
        if (o.neverFits()) return Decision.neverFits(ask.rule(), ask.limit(), o.remaining(), reset, ask.cost());
        Duration retry = Duration.ofMillis(Math.max(o.retryAfterMillis(), o.resetMillis()));
        return Decision.rejected(ask.rule(), Decision.Kind.RATE, ask.limit(), o.remaining(), reset, retry).withCost(ask.cost());
    }
}
