package io.sluice.engine;

import io.sluice.engine.rate.RateDecider;
import io.sluice.engine.rate.TakenEntry;
import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.internal.ThrottledLog;
import io.sluice.rule.HeaderStyle;
import io.sluice.rule.MissingKeyPolicy;
import io.sluice.rule.PlanLimits;
import io.sluice.rule.Rule;
import io.sluice.spi.Entry;


import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Applies the rules that match one request, as the contract's Evaluation says: rate rules first, then
 * concurrency rules, each group in the order given (name order); the first rejection ends the request and
 * returns the concurrency permits already taken for it, and the rate permits other rules took for it
 * ({@link RateDecider#giveBack}): a request one rule rejects spends nothing of the others.
 * Thread-safe; each admission's own state is confined to its chain of stages.
 */
final class Admitter {
    private final RateDecider rates;
    private final Leases leases;
    private final EngineListener listener;
    /** The application's listeners: every decision a request was told. */
    private final DecisionFeed feed;
    private final ThrottledLog log;
    /** Which headers a rejection thrown as an exception carries. */
    private final HeaderStyle headers;
    private final Overrides overrides;

    Admitter(RateDecider rates, Leases leases, EngineListener listener, DecisionFeed feed, ThrottledLog log,
             HeaderStyle headers, Overrides overrides) {
        this.headers = headers;
        this.feed = feed;
        this.overrides = overrides;
        this.rates = rates;
        this.leases = leases;
        this.listener = listener;
        this.log = log;
    }

    CompletionStage<Admission> admit(List<Rule> matching, KeySource keys) {
        List<Rule> applicable = counting(matching, keys);
        if (applicable.isEmpty()) return CompletableFuture.completedFuture(Admission.none());
        List<Step> steps = new ArrayList<>(applicable.size() + 1);
        List<PlanLimits> plans = plansOf(applicable, keys);
        for (int i = 0; i < applicable.size(); i++) {
            Rule r = applicable.get(i);
            if (r.limitsRate()) step(steps, r, plans == null ? null : plans.get(i), Decision.Kind.RATE);
        }
        for (int i = 0; i < applicable.size(); i++) {
            Rule r = applicable.get(i);
            if (r.limitsConcurrency()) step(steps, r, plans == null ? null : plans.get(i), Decision.Kind.CONCURRENCY);
        }
        return run(steps, 0, new Progress(keys));
    }

    /**
     * The rules that count this request, each asked once before any backend call: those that apply to it ({@code
     * when}) and do not exempt it ({@code exempt}, reported per limit); {@code matching} itself when every rule counts
     * it, so that requests no rule excludes allocate nothing for it.
     */
    private List<Rule> counting(List<Rule> matching, KeySource keys) {
        List<Rule> counting = null;
        for (int i = 0; i < matching.size(); i++) {
            Rule r = matching.get(i);
            boolean counts = keys.applies(r) && !exempted(r, keys);
            if (!counts && counting == null) counting = new ArrayList<>(matching.subList(0, i));
            else if (counts && counting != null) counting.add(r);
        }
        return counting == null ? matching : counting;
    }

    private boolean exempted(Rule rule, KeySource keys) {
        if (!keys.exempt(rule)) return false;
        if (rule.limitsRate()) listener.exempt(rule, Decision.Kind.RATE);
        if (rule.limitsConcurrency()) listener.exempt(rule, Decision.Kind.CONCURRENCY);
        return true;
    }

    /**
     * One step of a request: {@code rule} as the rules file has it (what key sources are asked about) and
     * {@code limits}, the same rule as the request's plan limits it (what is decided and advertised).
     */
    private record Step(Rule rule, Rule limits, Decision.Kind kind, boolean planExempt) {
        Step(Rule rule, Rule limits, Decision.Kind kind) {
            this(rule, limits, kind, false);
        }
    }

    /**
     * Each rule's plan for this request (null: the rule's own limits), asked once per rule and never sent anywhere;
     * null when no rule has plans, so that requests without plans allocate nothing for them.
     */
    private static List<PlanLimits> plansOf(List<Rule> applicable, KeySource keys) {
        boolean any = false;
        for (Rule r : applicable) any |= r.plans().any();
        if (!any) return null;
        List<PlanLimits> plans = new ArrayList<>(applicable.size());
        for (Rule r : applicable) plans.add(r.plans().any() ? r.plans().lookup(keys.planFor(r)) : null);
        return plans;
    }

    /**
     * A plan that says {@code unlimited} exempts the request from that limit: no step, no backend call (unless an
     * override of the rule may say otherwise for the request's key, which {@link #overridden} learns).
     */
    private void step(List<Step> steps, Rule rule, PlanLimits plan, Decision.Kind kind) {
        if (plan == null) {
            steps.add(new Step(rule, rule, kind));
            return;
        }
        boolean exempt = kind == Decision.Kind.RATE ? plan.rateUnlimited() : plan.concurrencyUnlimited();
        if (exempt && overrides.covers(rule)) steps.add(new Step(rule, rule, kind, true));
        else if (exempt) listener.skipped(rule, kind);
        else steps.add(new Step(rule, plan.applyTo(rule), kind));
    }

    /**
     * The step as the key's override (which wins over its plan) limits it, or null when the request is exempt from
     * it (an {@code unlimited} override, or an exempting plan and no override).
     */
    private Step overridden(Step step, String raw) {
        PlanLimits o = raw == null ? null : overrides.lookup(step.rule(), raw);
        if (o == null) return step.planExempt() ? null : step;
        boolean exempt = step.kind() == Decision.Kind.RATE ? o.rateUnlimited() : o.concurrencyUnlimited();
        return exempt ? null : new Step(step.rule(), o.applyTo(step.limits()), step.kind());
    }

    /**
     * The rate permits a decision took: {@code cost} of {@code limits} (the rule as the request's plan limits it), in
     * the backend under {@code entry} (a log's; for permits paid from this server's stock, their use of it) or,
     * {@code local}, of this server's share while the backend could not answer (the share's entry); {@code overLimit} when the overage paid for them (soft or elastic),
     * where they go back.
     */
    record Taken(Rule limits, String raw, long cost, boolean local, Entry entry, boolean overLimit) {
        /** Gives the permits back: to the share when decided locally, else to the backend (or the key's stock). */
        CompletionStage<Void> giveBack(RateDecider rates) {
            return local ? rates.giveBackLocal(limits, raw, cost, entry) : rates.giveBack(limits, raw, cost, entry, overLimit);
        }
    }

    /** What one admission has decided and taken so far. Confined to one admission's chain of stages. */
    private static final class Progress {
        private static final String UNRESOLVED = new String("unresolved");
        final KeySource keys;
        final List<Decision> decisions = new ArrayList<>(2);
        final List<Leases.Lease> held = new ArrayList<>(1);
        /** Rate permits admitted decisions took for this request, given back if a later rule rejects it. */
        final List<Taken> taken = new ArrayList<>(1);
        private final Map<Rule, String> resolved = new IdentityHashMap<>(2);

        Progress(KeySource keys) {
            this.keys = keys;
        }

        /** A rule with both a rate and a concurrency limit resolves its key once per request. */
        String keyFor(Rule rule) {
            String v = resolved.computeIfAbsent(rule, r -> {
                String k = keys.keyFor(r);
                return k == null ? UNRESOLVED : k;
            });
            return v == UNRESOLVED ? null : v;
        }
    }

    private CompletionStage<Admission> run(List<Step> steps, int from, Progress p) {
        for (int i = from; i < steps.size(); i++) {
            Step listed = steps.get(i);
            String raw = p.keyFor(listed.rule());
            Step step = overrides.covers(listed.rule()) ? overridden(listed, raw) : listed;
            if (step == null) {
                listener.skipped(listed.rule(), listed.kind());
                continue;
            }
            if (raw == null) {
                if (step.rule().onMissingKey() == MissingKeyPolicy.SKIP) {
                    listener.skipped(step.rule(), step.kind());
                    continue;
                }
                Decision d = missingKey(step);
                p.decisions.add(d);
                feed.publish(d, null);
                if (d.rejects()) return rejected(p, d);
                continue;
            }
            TakenEntry entry = step.kind() == Decision.Kind.RATE ? new TakenEntry() : null;
            CompletableFuture<Decision> decided = (entry != null
                    ? rates.decide(step.limits(), raw, p.keys.costFor(step.rule()), entry) : leases.acquire(step.limits(), raw, p.held)).toCompletableFuture();
            // Answered already (the attack shield, an in-memory backend): go on without another stage.
            if (decided.isDone() && !decided.isCompletedExceptionally()) {
                Decision d = decided.join();
                if (record(p, step, raw, d, entry)) return rejected(p, d);
                continue;
            }
            int next = i + 1;
            return decided.thenCompose(d -> record(p, step, raw, d, entry) ? rejected(p, d) : run(steps, next, p));
        }
        return CompletableFuture.completedFuture(finish(p, null));
    }

    /** Adds a decision to the request's, and what it took (a rate's kept under {@code entry}); whether it rejects the request. */
    private boolean record(Progress p, Step step, String raw, Decision d, TakenEntry entry) {
        p.decisions.add(d);
        feed.publish(d, raw);
        if (d.rejects()) return true;
        boolean local = d.outcome() == Decision.Outcome.FAILED_LOCAL;
        if (step.kind() == Decision.Kind.RATE && d.allowed() && (d.hasCounts() || local)) {
            p.taken.add(new Taken(step.limits(), raw, d.cost(), local, entry.get(), d.overLimit()));
        }
        if (d.dryRunRejection()) {
            log.warn("dry-run:" + d.ruleName(), "Dry-run rule '" + d.ruleName() + "' would have rejected a request ("
                    + d.kind().name().toLowerCase(Locale.ROOT) + " limit " + d.limit() + ")");
        }
        return false;
    }

    /**
     * The request is rejected: what other rules took for it goes back first (at most a deadline; a prefetching key's
     * give-back first waits, at most a deadline, for the key's call in flight), then the answer.
     */
    private CompletionStage<Admission> rejected(Progress p, Decision rejection) {
        if (p.taken.isEmpty()) return CompletableFuture.completedFuture(finish(p, rejection));
        CompletableFuture<?>[] back = new CompletableFuture<?>[p.taken.size()];
        for (int i = 0; i < back.length; i++) {
            back[i] = p.taken.get(i).giveBack(rates).toCompletableFuture();
        }
        return CompletableFuture.allOf(back).handle((v, e) -> finish(p, rejection));
    }

    private Admission finish(Progress p, Decision rejection) {
        List<Leases.Lease> held = List.copyOf(p.held);
        if (rejection != null) {
            held.forEach(leases::release);
            return Admission.rejected(p.decisions, rejection, headers);
        }
        // What the rate rules took stays with the admission, to be given back or settled when the request ends.
        Admission.Charges charges = p.taken.isEmpty() ? Admission.Charges.NONE : new RequestCharges(p.taken, rates);
        if (held.isEmpty()) return Admission.admitted(p.decisions, () -> { }, charges);
        return Admission.admitted(p.decisions, () -> held.forEach(leases::release), charges);
    }

    private Decision missingKey(Step step) {
        Rule rule = step.limits();
        boolean rate = step.kind() == Decision.Kind.RATE;
        long limit = rate ? rule.rate().orElseThrow().permits() : rule.concurrency();
        Duration retry = rate ? rule.rate().get().period() : Leases.REJECTED_RETRY;
        Decision d = Decision.missingKey(rule, step.kind(), limit, retry);
        listener.decided(d, EngineListener.Source.MISSING_KEY);
        return d;
    }
}
