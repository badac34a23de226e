package io.sluice.engine.rate;

import io.sluice.Decision;
import io.sluice.engine.EngineScheduler;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.Rule;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** A prefetching key's decision in the backend, ordered with the key's refunds on this server. */
class OrderedStepTest {
    private final RateStepFixture f = new RateStepFixture();
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Prefetcher prefetcher = new Prefetcher(new InMemoryBackend(), f.ticker, scheduler, key -> { }, () -> 1);
    private final Rule rule = RateStepFixture.rule("rate=100/1h", "prefetch=5");
    /** The step below, answering once the test lets it. */
    private final CompletableFuture<Decision> answer = new CompletableFuture<>();
    private final OrderedStep step = new OrderedStep(prefetcher, f.guard, f.ticker, ask -> answer);

    @AfterEach
    void close() {
        prefetcher.close();
        scheduler.close();
    }

    @Test
    void aRefundWaitsForTheKeysDecisionInTheBackend() {
        String key = f.ask(rule, "k", 1).key();
        assertThat(prefetcher.callsInFlight(key)).isNull();
        CompletableFuture<Decision> d = step.decide(f.ask(rule, "k", 1)).toCompletableFuture();
        CompletableFuture<Void> beforeARefund = prefetcher.callsInFlight(key);
        assertThat(beforeARefund).as("the decision in flight").isNotNull().isNotDone();
        answer.complete(Decision.allowed(rule, Decision.Kind.RATE, 100, 7, Duration.ZERO));
        assertThat(d).isDone();
        assertThat(beforeARefund).isDone();
        assertThat(prefetcher.callsInFlight(key)).isNull();
    }

    @Test
    void theDecisionWaitsForTheKeysRefundsInFlight() {
        String key = f.ask(rule, "k", 1).key();
        CompletableFuture<Void> refund = prefetcher.refunding(key, new CompletableFuture<>());
        CompletableFuture<Decision> d = step.decide(f.ask(rule, "k", 1)).toCompletableFuture();
        assertThat(prefetcher.callsInFlight(key)).as("not sent while the refund is in flight").isNull();
        refund.complete(null);
        assertThat(prefetcher.callsInFlight(key)).as("sent once it landed").isNotNull();
        answer.complete(Decision.allowed(rule, Decision.Kind.RATE, 100, 7, Duration.ZERO));
        assertThat(d.join().allowed()).isTrue();
    }
}
