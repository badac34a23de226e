package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.KeyNaming;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Refunding;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Elastic borrowing: an {@code elastic} rule's own key, then, over its nominal limit, its {@code capacity} rule's
 * ({@link Elastic}). The capacity rule is looked up by name in the engine's current rules on every such call, so a
 * reloaded rule set lends from its own. The two or three calls share one {@code sluice.backend-timeout} and are
 * not coalesced (they span two keys). Thread-safe.
 */
final class ElasticCall implements RateCall {
    private final LimiterBackend backend;
    /** Null for a backend that cannot refund. */
    private final Refunding refunding;
    private final BackendGuard guard;
    private final KeyNaming naming;
    /** The rules in effect, where the capacity rule is found; null when the rule never borrows. */
    private final Supplier<RuleSet> rules;

    /**
     * @param rules the rules in effect; null for a rule that never borrows (a dry-run rule: what it took would be
     *              missing from rules that enforce)
     */
    ElasticCall(LimiterBackend backend, Refunding refunding, BackendGuard guard, KeyNaming naming, Supplier<RuleSet> rules) {
        this.backend = backend;
        this.refunding = refunding;
        this.guard = guard;
        this.naming = naming;
        this.rules = rules;
    }

    @Override
    public Sent send(RateAsk ask) {
        Payment capacity = rules == null ? null : capacityPayment(ask.rule(), ask.cost()).orElse(null);
        CompletionStage<RateOutcome> answered;
        try {
            answered = capacity == null ? Elastic.consume(backend, refunding, ask.request(), null)
                    : Elastic.consume(backend, refunding, ask.request(), capacity.request(), capacity.entry()::set);
        } catch (RuntimeException e) {
            answered = CompletableFuture.failedFuture(e);
        }
        return new Sent(guard.call(answered, guard.timeout()).thenApply(RateAnswer.Answered::new), answered, capacity);
    }

    /**
     * The capacity rule's request for what an elastic rule borrows: its own {@code global} key, built exactly as
     * its own requests are (same algorithm and limits, so the state is never rescaled between the two). Empty when
     * the current rules have no such rule, which a validated rule set never allows.
     */
    private Optional<Payment> capacityPayment(Rule rule, long cost) {
        return rule.ratePolicy().capacity().flatMap(name -> rules.get().get(name)).filter(Rule::limitsRate)
                .map(c -> new Payment(c, c.ratePolicy().request(naming.rate(c, KeyResolver.GLOBAL), c.rate().get(), cost)));
    }
}
