package io.sluice.rule;

import java.util.Optional;

/**
 * One plan of a rule ({@code sluice.rules.<rule>.plans.<plan>.*}): the limits it puts in place of the rule's.
 * Built by {@link RuleParser}, which has checked them against the rule; immutable and thread-safe.
 *
 * @param name                 the plan's name, {@code [A-Za-z0-9_-]+}
 * @param rate                 the plan's rate (over the rule's period), or empty for the rule's
 * @param rateUnlimited        {@code rate=unlimited}: the rule's rate does not apply to the plan
 * @param burst                {@code token-bucket}: the plan's bucket capacity; 0 for the permits of the plan's rate
 * @param concurrency          the plan's concurrency limit, or 0 for the rule's
 * @param concurrencyUnlimited {@code concurrency=unlimited}: the rule's concurrency does not apply to the plan
 */
public record PlanLimits(String name, Optional<Rate> rate, boolean rateUnlimited, long burst, int concurrency,
                         boolean concurrencyUnlimited) {

    /**
     * The rule as this plan limits it: the same rule (name, key, counters, status...) with the plan's rate, burst
     * and concurrency. What the engine decides with, and what headers and rejections advertise.
     *
     * @param rule the rule the plan belongs to
     * @return the rule under this plan
     */
    public Rule applyTo(Rule rule) {
        Optional<Rate> r = rate.isPresent() ? rate : rule.rate();
        int c = concurrency > 0 ? concurrency : rule.concurrency();
        return new Rule(rule.name(), r, c, rule.lease(), rule.waitTime(), rule.paths(), rule.methods(), rule.key(),
                rule.onMissingKey(), rule.status(), rule.mode(), rule.onBackendFailure(), ratePolicy(rule.ratePolicy()),
                rule.plans(), rule.problemType(), rule.when(), rule.exempt(), rule.block());
    }

    /**
     * The rule's rate policy under this plan. A plan's rate brings its own default burst (its permits), as a rule's
     * rate does; an explicit plan {@code burst} wins; a plan without either keeps the rule's burst.
     *
     * @param rule the rule's own policy
     * @return the policy with the plan's burst
     */
    public RatePolicy ratePolicy(RatePolicy rule) {
        long b = burst > 0 ? burst : rate.isPresent() ? 0 : rule.burst();
        if (b == rule.burst()) return rule;
        return rule.withBurst(b);
    }
}
