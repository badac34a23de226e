package io.sluice;

import io.sluice.internal.DecisionListener;
import io.sluice.internal.DenyCache;
import io.sluice.internal.Ticker;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.rule.Throttling;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

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
    /** The rules in effect: an answer for a rule a reload has replaced must not shield a key under the new one. */
    private final Supplier<RuleSet> rules;

    RateDecider(LimiterBackend backend, BackendGuard guard, KeyNaming naming, Ticker ticker, DecisionListener listener,
                EngineScheduler scheduler, Supplier<RuleSet> rules) {
        this.rules = rules;
        this.backend = backend;
        this.scheduler = scheduler;
        this.guard = guard;
        this.naming = naming;
        this.ticker = ticker;
        this.listener = listener;
    }

    /** After a reload: a key remembered as exhausted may have room under its rule's new limit, so ask Redis again. */
    void forgetShielded() {
        denied.clear();
    }

    CompletionStage<Decision> decide(Rule rule, String raw, long cost) {
        long limit = rule.rate().orElseThrow().permits();
        String key = naming.rate(rule, raw);
        if (rule.dryRun()) return ask(rule, key, limit, cost, false);
        DenyCache.Check check = denied.check(key, ticker.millis());
        if (check.deniedMillis() > 0) {
            Decision d = Decision.shielded(rule, limit, Duration.ofMillis(check.deniedMillis()));
            listener.decided(d, DecisionListener.Source.SHIELD);
            return CompletableFuture.completedFuture(d);
        }
        // Another request is asking the backend about this key right now: its answer decides for us too.
        if (check.pending() != null) return check.pending().thenCompose(ignored -> decide(rule, raw, cost));
        // Under soft or elastic throttling the key may go past a nominal "0 remaining": only Redis knows.
        CompletionStage<Decision> asked = ask(rule, key, limit, cost, rule.ratePolicy().throttling() == Throttling.HARD);
        if (!check.probe()) return asked;
        return asked.whenComplete((d, e) -> denied.settle(key, ticker.millis()));
    }

    private CompletionStage<Decision> ask(Rule rule, String key, long limit, long cost, boolean shield) {
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
                if (shield && o.remaining() <= 0) deny(rule, key, asked, o.resetMillis());
                d = Decision.allowed(rule, Decision.Kind.RATE, limit, o.remaining(), reset);
            } else {
                Duration retry = Duration.ofMillis(Math.max(o.retryAfterMillis(), o.resetMillis()));
                if (shield) deny(rule, key, asked, retry.toMillis());
                d = Decision.rejected(rule, Decision.Kind.RATE, limit, o.remaining(), reset, retry);
            }
            listener.decided(d, DecisionListener.Source.BACKEND);
            return o.allowed() && o.delayMillis() > 0 ? atSlot(d, o.delayMillis()) : CompletableFuture.completedFuture(d);
        }).thenCompose(decided -> decided);
    }

    /** Shields the key, unless its rule is no longer the one in effect (a reload replaced it): then nothing. */
    private void deny(Rule rule, String key, long asked, long millis) {
        if (!inEffect(rule)) return;
        denied.deny(key, asked, millis);
        // A reload between the look and the deny: its clear may have run first.
        if (!inEffect(rule)) denied.clear();
    }

    /** The rule is the engine's current one of its name (a rule the engine does not know is not second-guessed). */
    private boolean inEffect(Rule rule) {
        Rule current = rules.get().get(rule.name()).orElse(null);
        return current == null || current == rule || current.equals(rule);
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
