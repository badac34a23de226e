package io.sluice.engine.rate;

import io.sluice.engine.EngineListener;
import io.sluice.engine.EngineScheduler;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.Decision;
import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.ForwardingBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class BackendStepTest {
    private static final Entry LATE = new Entry.LogEntry("late-entry");
    private static final Entry E1 = new Entry.LogEntry("e1");
    private final RateStepFixture f = new RateStepFixture();
    private final List<RateRequest> refunded = new CopyOnWriteArrayList<>();
    private final List<Entry> refundedEntries = new CopyOnWriteArrayList<>();
    private final ForwardingBackend backend = new ForwardingBackend(new InMemoryBackend()) {
        @Override
        public CompletionStage<Void> refund(RateRequest request) {
            return refund(request, null);
        }

        @Override
        public CompletionStage<Long> refundCredited(RateRequest request, Entry entry) {
            return refund(request, entry).thenApply(v -> request.cost());
        }

        @Override
        public CompletionStage<Void> refund(RateRequest request, Entry entry) {
            refunded.add(request);
            refundedEntries.add(entry);
            return CompletableFuture.completedFuture(null);
        }
    };
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Shield shield = new Shield(f.ticker);
    private final Refunds refunds = new Refunds(backend, f.guard, shield, new Prefetcher(backend, f.ticker, scheduler, key -> { }, () -> 1));
    private final List<Long> slots = new CopyOnWriteArrayList<>();
    private final LeakySlot slot = new LeakySlot((task, millis) -> {
        slots.add(millis);
        task.run();
        return true;
    });

    @AfterEach
    void close() {
        scheduler.close();
    }

    private BackendStep step(RateCall call, BackendStep.Remaining remaining) {
        return new BackendStep(call, remaining, slot, f.guard, refunds, f.listener);
    }

    private static RateCall answering(RateOutcome o) {
        return ask -> new RateCall.Sent(CompletableFuture.completedFuture(new RateAnswer.Answered(o)), CompletableFuture.completedFuture(o));
    }

    @Test
    void theBackendsAnswerIsTheDecision() {
        Decision d = step(answering(new RateOutcome(true, 4, 1_000, 0)), BackendStep.Remaining.BACKEND)
                .decide(f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1)).toCompletableFuture().join();
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(4);
        assertThat(f.sources).containsExactly(EngineListener.Source.BACKEND);
        assertThat(slots).isEmpty();
    }

    @Test
    void remainingCountsWhatTheKeyHoldsOnThisServer() {
        Decision d = step(answering(new RateOutcome(true, 4, 1_000, 0)), (request, left, reset) -> left + 10)
                .decide(f.ask(RateStepFixture.rule("rate=50/1m"), "k", 1)).toCompletableFuture().join();
        assertThat(d.remaining()).isEqualTo(14);
    }

    @Test
    void aRequestTheShieldScreenedInItsLaneIsTheShieldsRejection() {
        RateCall screened = ask -> new RateCall.Sent(CompletableFuture.completedFuture(new RateAnswer.Screened(0, 500)), new CompletableFuture<>());
        Decision d = step(screened, BackendStep.Remaining.BACKEND).decide(f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1))
                .toCompletableFuture().join();
        assertThat(d.rejects()).isTrue();
        assertThat(f.sources).containsExactly(EngineListener.Source.SHIELD);
    }

    @Test
    void anAdmittedRequestWaitsForItsLeakyBucketSlot() {
        step(answering(new RateOutcome(true, 1, 1_000, 0, 300, false)), BackendStep.Remaining.BACKEND)
                .decide(f.ask(RateStepFixture.rule("rate=5/1m", "algorithm=leaky-bucket"), "k", 1)).toCompletableFuture().join();
        assertThat(slots).containsExactly(300L);
    }

    @Test
    void aLatePermitIsGivenBackWhenTheFailurePolicyDenied() {
        CompletableFuture<RateOutcome> late = new CompletableFuture<>();
        RateCall call = ask -> new RateCall.Sent(f.guard.call(late, RateStepFixture.DEADLINE).thenApply(RateAnswer.Answered::new), late);
        RateAsk ask = f.ask(RateStepFixture.rule("rate=5/1m", "on-backend-failure=deny"), "k", 1);
        CompletableFuture<Decision> d = step(call, BackendStep.Remaining.BACKEND).decide(ask).toCompletableFuture();
        f.pastDeadline();
        assertThat(d.join().rejects()).isTrue();
        assertThat(d.join().outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        late.complete(new RateOutcome(true, 4, 1_000, 0).withEntry(LATE));
        assertThat(refunded).containsExactly(ask.request());
        assertThat(refundedEntries).as("the late permit's own entry").containsExactly(LATE);
    }

    /** An admitted answer's entry is kept with the decision under way, for its give-back. */
    @Test
    void anAdmittedAnswersEntryIsKeptForItsGiveBack() {
        RateCall call = ask -> {
            CompletableFuture<RateOutcome> o = CompletableFuture.completedFuture(new RateOutcome(true, 4, 1_000, 0).withEntry(E1));
            return new RateCall.Sent(o.thenApply(RateAnswer.Answered::new), o);
        };
        RateAsk ask = f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1);
        assertThat(step(call, BackendStep.Remaining.BACKEND).decide(ask).toCompletableFuture().join().allowed()).isTrue();
        assertThat(ask.entry().get()).isEqualTo(E1);
    }

    @Test
    void aLatePermitStaysWithARequestTheFailurePolicyAllowed() {
        CompletableFuture<RateOutcome> late = new CompletableFuture<>();
        RateCall call = ask -> new RateCall.Sent(f.guard.call(late, RateStepFixture.DEADLINE).thenApply(RateAnswer.Answered::new), late);
        CompletableFuture<Decision> d = step(call, BackendStep.Remaining.BACKEND)
                .decide(f.ask(RateStepFixture.rule("rate=5/1m", "on-backend-failure=allow"), "k", 1)).toCompletableFuture();
        f.pastDeadline();
        assertThat(d.join().allowed()).isTrue();
        late.complete(new RateOutcome(true, 4, 1_000, 0));
        assertThat(refunded).isEmpty();
    }
}
