package io.sluice;

import io.sluice.internal.DecisionListener;
import io.sluice.internal.DenyCache;
import io.sluice.internal.Ticker;
import io.sluice.rule.Rule;
import io.sluice.rule.Throttling;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Rate decisions: one backend call per request, with the attack shield in front. A key the backend has
 * rejected (or whose last permit was just taken) is rejected here, without a round trip, until its
 * retry-after; while one request asks the backend about a shielded key again, the others wait for its answer.
 * Dry-run rules always ask the backend: they exist to measure. Thread-safe.
 */
final class RateDecider {
    /** Keys the shield remembers at most; past that it forgets the soonest to expire. */
    static final int SHIELD_MAX_KEYS = 100_000;

    private final LimiterBackend backend;
    private final BackendGuard guard;
    private final KeyNaming naming;
    private final Ticker ticker;
    private final DecisionListener listener;
    private final EngineScheduler scheduler;
    private final DenyCache denied = new DenyCache(SHIELD_MAX_KEYS);

    RateDecider(LimiterBackend backend, BackendGuard guard, KeyNaming naming, Ticker ticker, DecisionListener listener,
                EngineScheduler scheduler) {
        this.backend = backend;
        this.scheduler = scheduler;
        this.guard = guard;
        this.naming = naming;
        this.ticker = ticker;
        this.listener = listener;
    }

    CompletionStage<Decision> decide(Rule rule, String raw, long cost) {
        long limit = rule.rate().orElseThrow().permits();
        String key = naming.rate(rule, raw);
        String shielded = shieldKey(rule, key);
        if (rule.dryRun()) return ask(rule, key, shielded, limit, cost, false);
        DenyCache.Check check = denied.check(shielded, ticker.millis());
        if (check.deniedMillis() > 0) {
            Decision d = Decision.shielded(rule, limit, Duration.ofMillis(check.deniedMillis()));
            listener.decided(d, DecisionListener.Source.SHIELD);
            return CompletableFuture.completedFuture(d);
        }
        // Another request is asking the backend about this key right now: its answer decides for us too.
        if (check.pending() != null) return check.pending().thenCompose(ignored -> decide(rule, raw, cost));
        // Under soft or elastic throttling the key may go past a nominal "0 remaining": only Redis knows.
        CompletionStage<Decision> asked = ask(rule, key, shielded, limit, cost, rule.ratePolicy().throttling() == Throttling.HARD);
        if (!check.probe()) return asked;
        return asked.whenComplete((d, e) -> denied.settle(shielded, ticker.millis()));
    }

    /**
     * What the shield remembers a key under. Plans share one counter per key but not one limit: a key rejected on
     * one plan must still reach the backend on a larger one, so a rule with plans remembers it per limit.
     */
    private static String shieldKey(Rule rule, String key) {
        if (!rule.plans().any()) return key;
        return key + "|" + rule.rate().orElseThrow().permits() + "/" + rule.ratePolicy().burst();
    }

    private CompletionStage<Decision> ask(Rule rule, String key, String shielded, long limit, long cost, boolean shield) {
        RateRequest built = rule.ratePolicy().request(key, rule.rate().get(), cost);
        // Until the engine borrows from the capacity rule, an elastic rule holds its nominal limit.
        RateRequest request = rule.ratePolicy().throttling() == Throttling.ELASTIC ? built.withEffectiveLimit(limit) : built;
        if (!guard.allows()) return CompletableFuture.completedFuture(guard.circuitOpen(rule, Decision.Kind.RATE, limit));
        long asked = ticker.millis();
        return guard.call(backend.tryConsume(request), guard.timeout()).handle((RateOutcome o, Throwable e) -> {
            if (e != null) return CompletableFuture.completedFuture(guard.failure(rule, Decision.Kind.RATE, limit, e));
            Duration reset = Duration.ofMillis(o.resetMillis());
            Decision d;
            if (o.allowed()) {
                // Just took the last permit: no permit frees before the oldest one leaves the window.
                if (shield && o.remaining() <= 0) denied.deny(shielded, asked, o.resetMillis());
                d = Decision.allowed(rule, Decision.Kind.RATE, limit, o.remaining(), reset);
            } else {
                Duration retry = Duration.ofMillis(Math.max(o.retryAfterMillis(), o.resetMillis()));
                if (shield) denied.deny(shielded, asked, retry.toMillis());
                d = Decision.rejected(rule, Decision.Kind.RATE, limit, o.remaining(), reset, retry);
            }
            listener.decided(d, DecisionListener.Source.BACKEND);
            return o.allowed() && o.delayMillis() > 0 ? atSlot(d, o.delayMillis()) : CompletableFuture.completedFuture(d);
        }).thenCompose(decided -> decided);
    }

    /**
     * A leaky bucket's queued request is admitted at its slot: the decision completes then, from the engine's
     * thread (at most {@code queue} slots ahead, which the rule bounds). A filter's request waits for it on its
     * own thread; a {@code CompletionStage} caller holds no thread meanwhile.
     */
    private CompletionStage<Decision> atSlot(Decision d, long delayMillis) {
        CompletableFuture<Decision> slot = new CompletableFuture<>();
        if (!scheduler.later(() -> slot.complete(d), delayMillis)) slot.complete(d);
        return slot;
    }
}
