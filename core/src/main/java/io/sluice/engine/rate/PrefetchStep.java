package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.EngineListener;
import io.sluice.engine.Ticker;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.Decision;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Prefetch, for a request the key's stock could not pay: the request and the rule's {@code prefetch} in one
 * backend call under the usual deadline, the permits taken ahead paying for the key's next requests on this
 * server for a hold. One such call at a time per key: a request that finds one in flight waits for its stock
 * rather than ask beside it (which could find the last permits gone into that very stock), and asks below when
 * it brought none that fits; one that finds the circuit open or another call starting asks below at once.
 */
final class PrefetchStep implements RateStep {
    private final Prefetcher prefetcher;
    private final Duration hold;
    /** How long the shield may trust an answer ({@link RatePath.Shape#shieldCapMillis}). */
    private final long shieldCapMillis;
    /** What learns from a call that took nothing ahead; null when the rule is not shielded. */
    private final Shield shield;
    private final BackendGuard guard;
    private final Refunds refunds;
    private final Ticker ticker;
    private final EngineListener listener;
    private final RateStep next;

    /**
     * @param hold   the rule's {@code prefetch-hold}
     * @param shieldCapMillis how long the shield may trust an answer
     * @param shield the shield when the rule is shielded, else null
     */
    PrefetchStep(Prefetcher prefetcher, Duration hold, long shieldCapMillis, Shield shield, BackendGuard guard, Refunds refunds,
                 Ticker ticker, EngineListener listener, RateStep next) {
        this.prefetcher = prefetcher;
        this.hold = hold;
        this.shieldCapMillis = shieldCapMillis;
        this.shield = shield;
        this.guard = guard;
        this.refunds = refunds;
        this.ticker = ticker;
        this.listener = listener;
        this.next = next;
    }

    @Override
    public CompletionStage<Decision> decide(RateAsk ask) {
        CompletableFuture<Void> landing = prefetcher.inFlight(ask.key());
        // Within what is left of the deadline: the request may have waited in a step above already.
        if (landing != null) return Waits.then(guard, landing, ask.left(ticker.nanos()), ask, () -> fromStockOrBelow(ask));
        // Sized per key: a key too quiet for a stock (prefetch=auto) is decided below, as without prefetch.
        long ahead = prefetcher.ahead(ask.rule(), ask.request());
        if (ahead > 0 && guard.allows() && prefetcher.startFetch(ask.key())) return fetch(ask, ahead);
        return next.decide(ask);
    }

    /** Pays from the stock the key's call brought, or asks below when it brought none that fits. */
    private CompletionStage<Decision> fromStockOrBelow(RateAsk ask) {
        Decision local = prefetcher.take(ask.rule(), ask.request(), ask.entry()::set);
        if (local == null) return next.decide(ask);
        listener.decided(local, EngineListener.Source.PREFETCH);
        return CompletableFuture.completedFuture(local);
    }

    /** The request's own call, taking {@code ahead} permits more for the key's stock. */
    private CompletionStage<Decision> fetch(RateAsk ask, long ahead) {
        long now = ticker.millis();
        RateRequest request = ask.request();
        CompletionStage<Prefetch> call = prefetcher.fetch(ask.rule(), request, ahead, hold);
        return guard.call(call, guard.timeout()).handle((p, e) -> {
            if (e != null) {
                Decision d = BackendStep.failure(guard, ask, e);
                call.thenAccept(late -> refunds.undoIfDenied(ask, d, late.outcome(), null));
                return d;
            }
            // Nothing taken ahead: the key is near its limit, which the shield keeps to itself as after any call.
            if (shield != null && p.taken() == 0 && Shield.shieldable(request)) {
                shield.learn(request, now, shieldCapMillis, p.remaining(), p.outcome().resetMillis(),
                        (long) Lanes.MAX_BATCH * Shield.cost(request));
            }
            ask.took(p.outcome());
            Decision d = BackendStep.decision(ask, p.outcome());
            listener.decided(d, EngineListener.Source.BACKEND);
            return d;
        });
    }
}
