package io.sluice.servlet;

import io.sluice.KeySource;
import io.sluice.rule.Rule;

/**
 * A {@link KeySource} that answers every question as {@code base} does; a {@code @Limited} call's sources
 * ({@link CallPlanSource}, {@link CallAudience}) override only what they answer differently, so that nothing else is
 * dropped on the way. Immutable.
 */
abstract class DelegatingKeySource implements KeySource {
    private final KeySource base;

    DelegatingKeySource(KeySource base) {
        this.base = base;
    }

    @Override
    public String keyFor(Rule rule) {
        return base.keyFor(rule);
    }

    @Override
    public long costFor(Rule rule) {
        return base.costFor(rule);
    }

    @Override
    public String planFor(Rule rule) {
        return base.planFor(rule);
    }

    @Override
    public boolean applies(Rule rule) {
        return base.applies(rule);
    }

    @Override
    public boolean exempt(Rule rule) {
        return base.exempt(rule);
    }
}
