package io.sluice.engine.rate;

import io.sluice.engine.EngineListener;
import io.sluice.engine.EngineScheduler;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.Decision;
import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.Rule;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateRequest;
import io.sluice.testing.ForwardingBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

class StockStepTest {
    private static final Duration HOLD = Duration.ofSeconds(10);
    private final RateStepFixture f = new RateStepFixture();
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    private final ForwardingBackend backend = new ForwardingBackend(new InMemoryBackend()) {
        @Override
        public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold,
                                                               List<Prefetch.Receipt> usedUp) {
            return gate.thenCompose(open -> super.tryConsumeAndPrefetch(request, ahead, hold, usedUp));
        }
    };
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Prefetcher prefetcher = new Prefetcher(backend, f.ticker, scheduler, key -> { }, () -> 1);
    private final RateStepFixture.Below below = new RateStepFixture.Below();
    private final StockStep step = new StockStep(prefetcher, f.guard, f.ticker, f.listener, below);
    private final Rule rule = RateStepFixture.rule("rate=100/1h", "prefetch=5", "prefetch-hold=10s", "on-backend-failure=deny");

    @AfterEach
    void close() {
        prefetcher.close();
        scheduler.close();
    }

    /** The key's call taking 5 ahead, as the prefetch step sends it. */
    private CompletionStage<Prefetch> fetch(RateAsk ask) {
        assertThat(prefetcher.startFetch(ask.key())).isTrue();
        return prefetcher.fetch(rule, ask.request(), 5, HOLD);
    }

    @Test
    void withoutStockTheRequestGoesBelow() {
        assertThat(step.decide(f.ask(rule, "k", 1)).toCompletableFuture().join().remaining()).isEqualTo(7);
        assertThat(below.calls).hasValue(1);
    }

    @Test
    void theKeysStockPaysWithoutARoundTrip() {
        fetch(f.ask(rule, "k", 1)).toCompletableFuture().join();
        Decision d = step.decide(f.ask(rule, "k", 2)).toCompletableFuture().join();
        assertThat(d.allowed()).isTrue();
        assertThat(f.sources).containsExactly(EngineListener.Source.PREFETCH);
        assertThat(prefetcher.held()).isEqualTo(3);
        assertThat(below.calls).hasValue(0);
    }

    @Test
    void theKeysCallInFlightLandsFirstThenItsStockPays() {
        gate = new CompletableFuture<>();
        fetch(f.ask(rule, "k", 1));
        CompletableFuture<Decision> d = step.decide(f.ask(rule, "k", 1)).toCompletableFuture();
        assertThat(d).isNotDone();
        gate.complete(null);
        assertThat(d.join().allowed()).isTrue();
        assertThat(f.sources).containsExactly(EngineListener.Source.PREFETCH);
        assertThat(below.calls).hasValue(0);
    }

    @Test
    void theWaitsShareTheRequestsDeadline() {
        gate = new CompletableFuture<>();
        fetch(f.ask(rule, "k", 1));
        CompletableFuture<Decision> d = step.decide(f.ask(rule, "k", 1)).toCompletableFuture();
        f.pastDeadline();
        assertThat(d.join().rejects()).isTrue();
        assertThat(d.join().outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        assertThat(below.calls).hasValue(0);
    }

    @Test
    void aStockOfAnotherLimitIsHandedBackBeforeTheRequestGoesBelow() {
        fetch(f.ask(rule, "k", 1)).toCompletableFuture().join();
        Rule planned = RateStepFixture.rule("rate=500/1h", "prefetch=5", "prefetch-hold=10s");
        step.decide(f.ask(planned, "k", 1)).toCompletableFuture().join();
        assertThat(below.calls).hasValue(1);
        assertThat(prefetcher.held()).isZero();
    }
}
