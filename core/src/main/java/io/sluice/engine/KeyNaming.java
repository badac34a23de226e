package io.sluice.engine;

import io.sluice.internal.RateKeys;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;

/**
 * The Redis key of each rule and key value: the prefix, the rule, what is limited and the hashed value. The
 * resolved value is always hashed, so no user-supplied character reaches Redis. Immutable and thread-safe.
 */
public final class KeyNaming {
    private final String prefix;

    public KeyNaming(String prefix) {
        this.prefix = prefix;
    }

    /** The rate state of the rule's algorithm for the key (see {@link RateKeys} for why it looks as it does). */
    public String rate(Rule rule, String raw) {
        return RateKeys.name(prefix, rule.name(), rule.ratePolicy().algorithm(), rule.rate().orElseThrow(), KeyResolver.hash(raw));
    }

    /**
     * The semaphore of the rule's concurrency for the key. The limit is not in the name: a changed limit keeps the
     * permits held, and the scripts change the free count by the difference.
     */
    public String lease(Rule rule, String raw) {
        return prefix + ":" + rule.name() + ":concurrency:" + KeyResolver.hash(raw);
    }
}
