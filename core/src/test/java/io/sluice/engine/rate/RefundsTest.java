package io.sluice.engine.rate;

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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class RefundsTest {
    private final RateStepFixture f = new RateStepFixture();
    private final List<RateRequest> refunded = new CopyOnWriteArrayList<>();
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
            return CompletableFuture.completedFuture(null);
        }
    };
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Shield shield = new Shield(f.ticker);
    private final Refunds refunds = new Refunds(backend, f.guard, shield, new Prefetcher(backend, f.ticker, scheduler, key -> { }, () -> 1));

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aLeakyBucketsSlotAndAnElasticDecisionAreNotRefundable() {
        assertThat(Refunds.refundable(RateStepFixture.rule("rate=5/1m"))).isTrue();
        assertThat(Refunds.refundable(RateStepFixture.rule("rate=5/1m", "algorithm=leaky-bucket"))).isFalse();
        assertThat(Refunds.refundable(RateStepFixture.rules("r.rate=5/1m", "r.throttling=elastic", "r.capacity=c",
                "c.rate=50/1m", "c.key=global").get("r").orElseThrow())).isFalse();
    }

    @Test
    void aRefundMakesTheShieldForgetTheKey() {
        RateAsk ask = f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1);
        shield.learn(ask.request(), f.ticker.millis(), Long.MAX_VALUE, 0, 60_000, Lanes.MAX_BATCH);
        assertThat(shield.screen(ask)).isNotNull();
        refunds.refund(ask.rule(), ask.request(), null).toCompletableFuture().join();
        assertThat(refunded).containsExactly(ask.request());
        assertThat(shield.screen(ask)).isNull();
    }

    @Test
    void onlyAPermitAdmittedLateForADeniedRequestIsUndone() {
        RateAsk ask = f.ask(RateStepFixture.rule("rate=5/1m", "on-backend-failure=deny"), "k", 1);
        Decision denied = Decision.failedClosed(ask.rule(), Decision.Kind.RATE, 5, Duration.ofSeconds(1));
        Decision allowed = Decision.failedOpen(ask.rule(), Decision.Kind.RATE, 5);
        refunds.undoIfDenied(ask, allowed, new RateOutcome(true, 4, 1_000, 0), null);
        refunds.undoIfDenied(ask, denied, new RateOutcome(false, 0, 1_000, 1_000), null);
        assertThat(refunded).isEmpty();
        refunds.undoIfDenied(ask, denied, new RateOutcome(true, 4, 1_000, 0), null);
        assertThat(refunded).containsExactly(ask.request());
    }

    /**
     * Issue 21 (IT seed 1970461311): a late elastic permit over the nominal limit was kept, with the capacity rule's
     * payment for it, though its request was denied; the model, which never saw the request, then admitted (borrowing)
     * where the engine rejected. The late answer says it went over, and then the capacity rule paid: both go back.
     */
    @Test
    void anElasticPermitAdmittedLateIsUndoneWithWhatItsCapacityRulePaid() {
        var rules = RateStepFixture.rules("r.rate=5/1m", "r.throttling=elastic", "r.capacity=c", "r.on-backend-failure=deny",
                "c.rate=50/1m", "c.key=global");
        var rule = rules.get("r").orElseThrow();
        var capacity = rules.get("c").orElseThrow();
        RateAsk ask = f.ask(rule, "k", 1);
        RateCall.Payment paid = new RateCall.Payment(capacity, f.ask(capacity, "*", 1).request());
        Decision denied = Decision.failedClosed(rule, Decision.Kind.RATE, 5, Duration.ofSeconds(1));
        refunds.undoIfDenied(ask, denied, new RateOutcome(true, 3, 1_000, 0, 0, false), paid);
        assertThat(refunded).as("within the nominal limit: nothing borrowed, back to that limit's count")
                .containsExactly(ask.request().withEffectiveLimit(5));
        refunded.clear();
        refunds.undoIfDenied(ask, denied, new RateOutcome(true, 0, 1_000, 0, 0, true), paid);
        assertThat(refunded).as("over it: the capacity rule paid").containsExactly(ask.request(), paid.request());
    }

    /**
     * Seed 476439900 of EngineMatchesModelIT: a soft token bucket's permit admitted late for a request decided by this
     * server's share went back to the overage's bucket, which had not paid for it (full, it took nothing), so the key
     * kept one token less than the model. Within the nominal limit it goes back there; over it, to the overage's.
     */
    @Test
    void aLatePermitGoesBackToWhatPaidForIt() {
        RateAsk ask = f.ask(RateStepFixture.rule("rate=500/1h", "algorithm=token-bucket", "throttling=soft", "overage=50%",
                "on-backend-failure=local"), "k", 1);
        Decision local = Decision.failedLocal(ask.rule(), Decision.Kind.RATE, 500, true, Duration.ZERO, 1);
        refunds.undoIfDenied(ask, local, new RateOutcome(true, 499, 7_200, 0, 0, false), null);
        refunds.undoIfDenied(ask, local, new RateOutcome(true, 0, 7_200, 0, 0, true), null);
        assertThat(refunded).containsExactly(ask.request().withEffectiveLimit(500), ask.request());
        assertThat(ask.request().effectiveLimit()).isEqualTo(750);
    }
}
