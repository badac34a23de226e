package io.sluice;

import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;

/**
 * What the engine needs to know of one request or call, per rule: the key value (resolved from a request by
 * the rule's {@code key} ({@link Sluice#keysOf}), or one value for every rule ({@link #fixed}, as
 * {@code @LimitKey})), the cost a rate rule charges it, the plan it is on, and whether the rule applies to it at all
 * ({@code when}) or leaves it alone ({@code exempt}). A source that knows nothing of users and roles (such as
 * {@link #fixed}) is subject to every rule it is admitted under.
 */
@FunctionalInterface
public interface KeySource {
    /**
     * The raw key value for a rule. Hashed before it reaches a backend.
     *
     * @param rule a rule that applies to the request or call
     * @return the key value, or null when it cannot be resolved
     */
    String keyFor(Rule rule);

    /**
     * Permits this request takes from a rate rule: the rule's {@code cost} unless the source knows better (a
     * per-path {@code costs} entry, {@code @LimitCost}, {@link #withCost}).
     *
     * @param rule a rate rule that applies to the request or call
     * @return the cost, at least 1
     */
    default long costFor(Rule rule) {
        return rule.ratePolicy().cost();
    }

    /**
     * The plan value of the request for a rule with {@code plan}, as resolved (unchecked: the engine maps
     * values the rule does not list to the rule's own limits, and never sends a plan value to the backend).
     *
     * @param rule a rule that applies to the request or call
     * @return the raw plan value, or null for none
     */
    default String planFor(Rule rule) {
        return null;
    }

    /**
     * Whether the rule applies to this request or call at all (its {@code when}): a rule that does not is as a rule
     * whose paths do not match, with no decision and no headers.
     *
     * @param rule a rule whose paths match the request, or that the call names
     * @return whether the rule applies; true unless the source knows better
     */
    default boolean applies(Rule rule) {
        return true;
    }

    /**
     * Whether the request or call is exempt from the rule (its {@code exempt}): not counted, no headers, reported as
     * exempt.
     *
     * @param rule a rule that applies to the request or call
     * @return whether the rule leaves it alone; false unless the source knows better
     */
    default boolean exempt(Rule rule) {
        return false;
    }

    /**
     * This source with one cost for every rate rule, as the programmatic form of {@code @LimitCost}. A cost above
     * what a rule ever admits (and any cost above 1 000 000 000) is a rejection whose
     * {@link Decision#neverFits()} is true, decided before any backend call: a cost taken from users can neither
     * pass a limit nor make the backend fail.
     *
     * <pre>{@code
     * Admission a = sluice.admit(rules, KeySource.fixed(tenant).withCost(pages)).toCompletableFuture().join();
     * a.orThrow(); // LimitExceededException when rejected
     * }</pre>
     *
     * @param cost permits the request takes from each rate rule, at least 1
     * @return a source answering {@code cost} from {@link #costFor}, and as this one otherwise
     * @throws IllegalArgumentException when {@code cost} is below 1
     */
    default KeySource withCost(long cost) {
        if (cost < 1) throw new IllegalArgumentException("cost must be at least 1: " + cost);
        return ForwardingKeySource.withCost(this, cost);
    }

    /**
     * This source with one plan for every rule with plans, as the programmatic form of {@code @LimitPlan}.
     *
     * @param plan the plan's name (compared exactly with each rule's plan names), or null for the rules' own limits
     * @return a source answering {@code plan} from {@link #planFor}, and as this one otherwise
     */
    default KeySource withPlan(String plan) {
        return ForwardingKeySource.withPlan(this, plan);
    }

    /**
     * The same value for every rule, as from a {@code @LimitKey} parameter; rules keyed {@code global} stay global.
     *
     * @param value the key value, or null for a missing key
     * @return a source that answers {@code value} for every rule not keyed {@code global}
     */
    static KeySource fixed(String value) {
        return rule -> rule.key().global() ? KeyResolver.GLOBAL : value;
    }
}
