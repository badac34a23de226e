package io.sluice;

import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;

/**
 * Supplies the key value of a rule for one request or call: resolved from a request by the rule's
 * {@code key} ({@link Sluice#keysOf}), or one value for every rule ({@link #fixed}, as {@code @LimitKey}).
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
     * The same value for every rule, as from a {@code @LimitKey} parameter; rules keyed {@code global} stay global.
     *
     * @param value the key value, or null for a missing key
     * @return a source that answers {@code value} for every rule not keyed {@code global}
     */
    static KeySource fixed(String value) {
        return rule -> rule.key().global() ? KeyResolver.GLOBAL : value;
    }
}
