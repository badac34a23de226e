package io.sluice.engine.rate;

import io.sluice.Decision;
import io.sluice.engine.BackendGuard;
import io.sluice.engine.Ticker;
import io.sluice.engine.prefetch.Prefetcher;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A prefetching key's request decided in the backend without a call of the key's own (none could start, or the stock
 * its call brought cannot pay it), ordered with the key's refunds on this server: the refunds in flight (and
 * hand-backs) land first, and a refund asked meanwhile waits for its answer ({@link Prefetcher#deciding}). Its answer
 * sets what the key has left besides this server's stocks, to which a landed refund adds: unordered, the answer could
 * count a refund that Redis ran first and that landed after it, counted twice. A call of the key's (a fetch, a refill)
 * is not held up by it: the two answers, in flight together, tell what the key has left as the lower of them.
 */
final class OrderedStep implements RateStep {
    private final Prefetcher prefetcher;
    private final BackendGuard guard;
    private final Ticker ticker;
    private final RateStep next;

    OrderedStep(Prefetcher prefetcher, BackendGuard guard, Ticker ticker, RateStep next) {
        this.prefetcher = prefetcher;
        this.guard = guard;
        this.ticker = ticker;
        this.next = next;
    }

    @Override
    public CompletionStage<Decision> decide(RateAsk ask) {
        CompletableFuture<Void> back = prefetcher.handBacksInFlight(ask.key());
        if (back != null) return Waits.then(guard, back, ask.left(ticker.nanos()), ask, () -> decided(ask));
        return decided(ask);
    }

    private CompletionStage<Decision> decided(RateAsk ask) {
        CompletableFuture<Void> landed = prefetcher.deciding(ask.request());
        CompletionStage<Decision> d;
        try {
            d = next.decide(ask);
        } catch (RuntimeException e) {
            landed.complete(null);
            throw e;
        }
        d.whenComplete((v, e) -> landed.complete(null));
        return d;
    }
}
