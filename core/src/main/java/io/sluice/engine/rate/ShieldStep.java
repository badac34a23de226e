package io.sluice.engine.rate;

import io.sluice.engine.EngineListener;
import io.sluice.Decision;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The attack shield: a request its key is known to have too little left for is rejected without a round trip. */
final class ShieldStep implements RateStep {
    private final Shield shield;
    private final EngineListener listener;
    private final RateStep next;

    ShieldStep(Shield shield, EngineListener listener, RateStep next) {
        this.shield = shield;
        this.listener = listener;
        this.next = next;
    }

    @Override
    public CompletionStage<Decision> decide(RateAsk ask) {
        Decision d = shield.screen(ask);
        if (d == null) return next.decide(ask);
        listener.decided(d, EngineListener.Source.SHIELD);
        return CompletableFuture.completedFuture(d);
    }
}
