package io.sluice;

import io.sluice.redisson.CallerClockBackend;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.ForwardingBackend;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The backend on Redis, on the engines' clock, whose calls a test holds with gates. While {@link #gating}: a
 * hand-back's and a prefetch's answers (Redis runs them at once) reach their callers only through {@link #handBack}
 * and {@link #prefetch}; always, a decision of the costly cost reaches Redis only once {@link #costly} completes, its
 * answer then passing {@link #costlyAnswer}.
 */
class GatedBackend extends ForwardingBackend {
    final Gate handBack = new Gate();
    final Gate prefetch = new Gate();
    final CompletableFuture<Void> costly = new CompletableFuture<>();
    final Gate costlyAnswer = new Gate();
    volatile boolean gating;
    private final long costlyCost;

    GatedBackend(CallerClockEngine engines, long costlyCost) {
        super(CallerClockBackend.of(engines.redisson(), engines.clock()));
        this.costlyCost = costlyCost;
    }

    @Override
    public CompletionStage<Long> returnPrefetched(Prefetch p, long unused, List<PrefetchUse> used) {
        CompletionStage<Long> sent = super.returnPrefetched(p, unused, used);
        return gating ? handBack.hold(sent) : sent;
    }

    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        CompletionStage<Prefetch> sent = super.tryConsumeAndPrefetch(r, ahead, hold, usedUp);
        return gating ? prefetch.hold(sent) : sent;
    }

    @Override
    public CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
        if (requests.stream().noneMatch(r -> r.cost() == costlyCost)) return super.tryConsumeAll(requests);
        return costlyAnswer.hold(costly.thenCompose(v -> super.tryConsumeAll(requests)));
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        if (r.cost() != costlyCost) return super.tryConsume(r);
        return costlyAnswer.hold(costly.thenCompose(v -> super.tryConsume(r)));
    }
}
