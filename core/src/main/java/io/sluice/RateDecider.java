package io.sluice;

import io.sluice.internal.DecisionListener;
import io.sluice.internal.DenyCache;
import io.sluice.internal.Elastic;
import io.sluice.internal.Ticker;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.rule.Throttling;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Rate decisions: one backend call per request, with the attack shield in front. A key the backend has
 * rejected (or whose last permit was just taken) is rejected here, without a round trip, until its
 * retry-after; while one request asks the backend about a shielded key again, the others wait for its answer.
 * Dry-run rules always ask the backend: they exist to measure.
 *
 * <p>An {@code elastic} rule over its nominal limit borrows from its {@code capacity} rule ({@link Elastic}): the
 * capacity rule is looked up by name in the engine's current rules on every such decision, so a reloaded rule set
 * lends from its own. Such a decision is reported once, for the elastic rule; the capacity rule's own counts
 * (stats, meters) cover only requests it matched itself, not what it lent. The two or three calls of an elastic
 * decision share one {@code sluice.backend-timeout}. Thread-safe.
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
    /**
     * The rules in effect: an answer for a rule a reload has replaced must not shield a key under the new one, and
     * an elastic rule finds its capacity rule here.
     */
    private final Supplier<RuleSet> rules;
    /** Counts reloads; written only by the engine's reload (serialized), read by every decision. */
    private volatile long generation;

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
        generation++;
        denied.clear();
    }

    CompletionStage<Decision> decide(Rule rule, String raw, long cost) {
        long limit = rule.rate().orElseThrow().permits();
        String key = naming.rate(rule, raw);
        String shielded = shieldKey(rule, key);
        long generation = this.generation;
        if (rule.dryRun()) return ask(rule, key, shielded, generation, limit, cost, false);
        DenyCache.Check check = denied.check(shielded, ticker.millis());
        if (check.deniedMillis() > 0) {
            Decision d = Decision.shielded(rule, limit, Duration.ofMillis(check.deniedMillis()));
            listener.decided(d, DecisionListener.Source.SHIELD);
            return CompletableFuture.completedFuture(d);
        }
        // Another request is asking the backend about this key right now: its answer decides for us too.
        if (check.pending() != null) return check.pending().thenCompose(ignored -> decide(rule, raw, cost));
        // Under soft or elastic throttling the key may go past a nominal "0 remaining": only Redis knows.
        CompletionStage<Decision> asked = ask(rule, key, shielded, generation, limit, cost, rule.ratePolicy().throttling() == Throttling.HARD);
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

    private CompletionStage<Decision> ask(Rule rule, String key, String shielded, long generation, long limit, long cost,
                                          boolean shield) {
        RateRequest request = rule.ratePolicy().request(key, rule.rate().get(), cost);
        if (!guard.allows()) return CompletableFuture.completedFuture(guard.circuitOpen(rule, Decision.Kind.RATE, limit));
        long asked = ticker.millis();
        return guard.call(consume(rule, request), guard.timeout()).handle((RateOutcome o, Throwable e) -> {
            if (e != null) return CompletableFuture.completedFuture(guard.failure(rule, Decision.Kind.RATE, limit, e));
            Duration reset = Duration.ofMillis(o.resetMillis());
            Decision d;
            if (o.allowed()) {
                // Just took the last permit: no permit frees before the oldest one leaves the window.
                if (shield && o.remaining() <= 0) deny(generation, shielded, asked, o.resetMillis());
                d = Decision.allowed(rule, Decision.Kind.RATE, limit, o.remaining(), reset).withCost(cost);
            } else if (o.neverFits()) {
                // Says nothing about what a smaller request would get: never shields the key.
                d = Decision.neverFits(rule, limit, o.remaining(), reset, cost);
            } else {
                Duration retry = Duration.ofMillis(Math.max(o.retryAfterMillis(), o.resetMillis()));
                if (shield) deny(generation, shielded, asked, retry.toMillis());
                d = Decision.rejected(rule, Decision.Kind.RATE, limit, o.remaining(), reset, retry).withCost(cost);
            }
            listener.decided(d, DecisionListener.Source.BACKEND);
            return o.allowed() && o.delayMillis() > 0 ? atSlot(d, o.delayMillis()) : CompletableFuture.completedFuture(d);
        }).thenCompose(decided -> decided);
    }

    /** One backend call, or for an elastic rule its own key then, over the limit, its capacity rule's. */
    private CompletionStage<RateOutcome> consume(Rule rule, RateRequest request) {
        if (rule.ratePolicy().throttling() != Throttling.ELASTIC) return backend.tryConsume(request);
        // A dry-run rule never borrows: what it took would be missing from rules that enforce.
        RateRequest capacity = rule.dryRun() ? null : capacityRequest(rule, request.cost()).orElse(null);
        return Elastic.consume(backend, request, capacity);
    }

    /**
     * The capacity rule's request for what an elastic rule borrows: its own {@code global} key, built exactly as
     * its own requests are (same algorithm and limits, so the state is never rescaled between the two). Empty when
     * the current rules have no such rule, which a validated rule set never allows.
     */
    private Optional<RateRequest> capacityRequest(Rule rule, long cost) {
        return rule.ratePolicy().capacity().flatMap(name -> rules.get().get(name)).filter(Rule::limitsRate)
                .map(c -> c.ratePolicy().request(naming.rate(c, KeyResolver.GLOBAL), c.rate().get(), cost));
    }

    /**
     * Shields the key, unless a reload came between the question and the answer (the answer was for the rules
     * replaced, and a plan-limited rule is not the rule object in the set, so rules are not compared).
     */
    private void deny(long generation, String key, long asked, long millis) {
        if (generation != this.generation) return;
        denied.deny(key, asked, millis);
        // A reload between the look and the deny: its clear may have run first.
        if (generation != this.generation) denied.clear();
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
