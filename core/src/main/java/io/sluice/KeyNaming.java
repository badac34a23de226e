package io.sluice;

import io.sluice.key.KeyResolver;
import io.sluice.rule.Rate;
import io.sluice.rule.Rule;

/**
 * The Redis key of each rule and key value: {@code <prefix>:<rule>:<limit kind>:<hashed value>}. The
 * resolved value is always hashed, so no user-supplied character reaches Redis. Immutable and thread-safe.
 */
final class KeyNaming {
    private final String prefix;

    KeyNaming(String prefix) {
        this.prefix = prefix;
    }

    /** The rule's rate is in the key, so an edited rate starts a fresh counter instead of being ignored. */
    String rate(Rule rule, String raw) {
        Rate rate = rule.rate().orElseThrow();
        return prefix + ":" + rule.name() + ":r" + rate.permits() + "-" + rate.period().toMillis() + ":" + KeyResolver.hash(raw);
    }

    /** The concurrency limit is in the key, so an edited limit starts a fresh semaphore. */
    String lease(Rule rule, String raw) {
        return prefix + ":" + rule.name() + ":c" + rule.concurrency() + ":" + KeyResolver.hash(raw);
    }
}
