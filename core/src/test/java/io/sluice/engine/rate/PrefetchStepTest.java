package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
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

class PrefetchStepTest {
    private static final Duration HOLD = Duration.ofSeconds(10);
    private final RateStepFixture f = new RateStepFixture();
    /** Prefetching calls wait for it. */
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    private final ForwardingBackend backend = new ForwardingBackend(new InMemoryBackend()) {
        @Override
        public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold,
                                                               List<Prefetch.Receipt> usedUp) {
            return gate.thenCompose(open -> super.tryConsumeAndPrefetch(request, ahead, hold, usedUp));
        }
    };
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Shield shield = new Shield(f.ticker);
    private final Prefetcher prefetcher = new Prefetcher(backend, f.ticker, scheduler, shield::forget, () -> 1);
    private final RateStepFixture.Below below = new RateStepFixture.Below();
    private final PrefetchStep step = new PrefetchStep(prefetcher, HOLD, HOLD.toMillis(), shield, f.guard,
            new Refunds(backend, f.guard, shield, prefetcher), f.ticker, f.listener, below);
    private final Rule rule = RateStepFixture.rule("rate=100/1h", "prefetch=5", "prefetch-hold=10s", "on-backend-failure=deny");

    @AfterEach
    void close() {
        prefetcher.close();
        scheduler.close();
    }

    @Test
    void anIdleKeysRequestTakesPermitsAheadInItsOwnCall() {
        Decision d = step.decide(f.ask(rule, "k", 1)).toCompletableFuture().join();
        assertThat(d.allowed()).isTrue();
        assertThat(f.sources).containsExactly(EngineListener.Source.BACKEND);
        assertThat(prefetcher.held()).isEqualTo(5);
        assertThat(below.calls).hasValue(0);
    }

    @Test
    void underAutoAKeyWhoseCallCameShortIsDecidedBelowForAHold() {
        Rule auto = RateStepFixture.rule("rate=400/1h", "on-backend-failure=deny");
        RateAsk first = f.ask(auto, "k", 1);
        for (int i = 0; i < 4; i++) prefetcher.arrived(auto, first.request());
        backend.tryConsume(first.request().withCost(398)).toCompletableFuture().join();
        Decision d = step.decide(first).toCompletableFuture().join();
        assertThat(d.allowed()).as("its own permit, and 1 of the 4 asked ahead").isTrue();
        assertThat(prefetcher.held()).isEqualTo(1);
        assertThat(below.calls).hasValue(0);
        step.decide(f.ask(auto, "k", 1)).toCompletableFuture().join();
        assertThat(below.calls).as("near its limit: no call of its own, which others would wait for").hasValue(1);
        f.ticker.advance(Duration.ofMillis(100));
        RateAsk later = f.ask(auto, "k", 1);
        for (int i = 0; i < 4; i++) prefetcher.arrived(auto, later.request());
        step.decide(later).toCompletableFuture().join();
        assertThat(below.calls).as("a hold later the key asks ahead again").hasValue(1);
    }

    @Test
    void aRequestFindingTheKeysCallInFlightWaitsForItsStock() {
        gate = new CompletableFuture<>();
        CompletableFuture<Decision> first = step.decide(f.ask(rule, "k", 1)).toCompletableFuture();
        CompletableFuture<Decision> second = step.decide(f.ask(rule, "k", 1)).toCompletableFuture();
        assertThat(second).isNotDone();
        gate.complete(null);
        assertThat(first.join().allowed()).isTrue();
        assertThat(second.join().allowed()).isTrue();
        assertThat(f.sources).containsExactlyInAnyOrder(EngineListener.Source.BACKEND, EngineListener.Source.PREFETCH);
        assertThat(below.calls).hasValue(0);
    }

    @Test
    void theWaitForTheKeysCallIsBoundedByTheDeadline() {
        gate = new CompletableFuture<>();
        step.decide(f.ask(rule, "k", 1));
        CompletableFuture<Decision> second = step.decide(f.ask(rule, "k", 1)).toCompletableFuture();
        f.pastDeadline();
        assertThat(second.join().outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        assertThat(below.calls).hasValue(0);
    }

    @Test
    void anOpenCircuitLeavesTheRequestToTheStepsBelow() {
        for (int i = 0; i < BackendGuard.FAILURES_BEFORE_OPEN; i++) f.guard.failed();
        assertThat(step.decide(f.ask(rule, "k", 1)).toCompletableFuture().join().allowed()).isTrue();
        assertThat(below.calls).hasValue(1);
        assertThat(prefetcher.held()).isZero();
    }

    @Test
    void aCallThatTookNothingAheadTeachesTheShield() {
        Rule two = RateStepFixture.rule("rate=6/1h", "prefetch=5", "prefetch-hold=10s");
        step.decide(f.ask(two, "k", 1)).toCompletableFuture().join();
        step.decide(f.ask(two, "k", 1)).toCompletableFuture().join();
        assertThat(shield.screen(f.ask(two, "k", 1))).as("the key has nothing left").isNotNull();
    }
}
