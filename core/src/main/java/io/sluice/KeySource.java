package io.sluice;

import io.sluice.rule.Rule;

/**
 * Supplies the key value of a rule for one request or call: resolved from a request by the rule's
 * {@code key} ({@link Sluice#keysOf}), or one value for every rule ({@link #fixed}, as {@code @LimitKey}).
 */
@FunctionalInterface
public interface KeySource {
    /** The raw key value for the rule, or null when it cannot be resolved. Hashed before it reaches a backend. */
    String keyFor(Rule rule);

    /** The same value for every rule, as from a {@code @LimitKey} parameter; rules keyed {@code global} stay global. */
    static KeySource fixed(String value) {
        return rule -> rule.key().global() ? io.sluice.key.KeyResolver.GLOBAL : value;
    }
}
