package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.EngineListener;
import io.sluice.engine.Ticker;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.Decision;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A prefetching rule's stock first: permits this server holds for the key pay for the request without a round
 * trip (they are not in what the shield last heard the backend had left). When they cannot, the key's call in
 * flight (a refill) lands first and its stock is tried again; then the key's stocks that cannot pay it (another
 * limit's, ended, or with too few left for its cost) and every hand-back in flight are back before the request goes
 * below, or the backend would count their permits as taken (a request of cost 4 beside a stock with 3 left would be
 * rejected where the same permits left in the backend admit it). Those waits share the request's one deadline: a backend too slow for them decides it
 * by the failure policy.
 */
final class StockStep implements RateStep {
    private final Prefetcher prefetcher;
    private final BackendGuard guard;
    private final Ticker ticker;
    private final EngineListener listener;
    private final RateStep next;

    StockStep(Prefetcher prefetcher, BackendGuard guard, Ticker ticker, EngineListener listener, RateStep next) {
        this.prefetcher = prefetcher;
        this.guard = guard;
        this.ticker = ticker;
        this.listener = listener;
        this.next = next;
    }

    @Override
    public CompletionStage<Decision> decide(RateAsk ask) {
        prefetcher.arrived(ask.rule(), ask.request());
        return decide(ask, true);
    }

    private CompletionStage<Decision> decide(RateAsk ask, boolean mayWait) {
        Decision local = prefetcher.take(ask.rule(), ask.request(), ask.entry()::set);
        if (local != null) {
            listener.decided(local, EngineListener.Source.PREFETCH);
            return CompletableFuture.completedFuture(local);
        }
        CompletableFuture<Void> landing = mayWait ? prefetcher.inFlight(ask.key()) : null;
        if (landing != null) {
            // A hand-back sent while a call of the key is in flight may reach Redis before or after it, and what its
            // answer says the key has left would be off by the stock: the call lands first.
            return Waits.then(guard, landing, ask.left(ticker.nanos()), ask, () -> decide(ask, false));
        }
        prefetcher.handBackUnfit(ask.request());
        CompletableFuture<Void> back = prefetcher.handBacksInFlight(ask.key());
        if (back != null) return Waits.then(guard, back, ask.left(ticker.nanos()), ask, () -> next.decide(ask));
        return next.decide(ask);
    }
}
