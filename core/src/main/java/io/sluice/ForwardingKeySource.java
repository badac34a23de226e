package io.sluice;

import io.sluice.rule.Rule;

/**
 * A {@link KeySource} that answers as another one, but with one cost or one plan for every rule: what
 * {@link KeySource#withCost} and {@link KeySource#withPlan} return. Immutable.
 */
final class ForwardingKeySource implements KeySource {
    /** No cost of its own: the cost comes from the source it forwards to. */
    static final long NO_COST = 0;

    private final KeySource base;
    private final long cost;
    private final boolean ownPlan;
    private final String plan;

    private ForwardingKeySource(KeySource base, long cost, boolean ownPlan, String plan) {
        this.base = base;
        this.cost = cost;
        this.ownPlan = ownPlan;
        this.plan = plan;
    }

    static KeySource withCost(KeySource base, long cost) {
        return new ForwardingKeySource(base, cost, false, null);
    }

    static KeySource withPlan(KeySource base, String plan) {
        return new ForwardingKeySource(base, NO_COST, true, plan);
    }

    @Override
    public String keyFor(Rule rule) {
        return base.keyFor(rule);
    }

    @Override
    public long costFor(Rule rule) {
        return cost == NO_COST ? base.costFor(rule) : cost;
    }

    @Override
    public boolean applies(Rule rule) {
        return base.applies(rule);
    }

    @Override
    public boolean exempt(Rule rule) {
        return base.exempt(rule);
    }

    @Override
    public String planFor(Rule rule) {
        return ownPlan ? plan : base.planFor(rule);
    }
}
