package io.sluice.spi;

import java.util.Objects;

/**
 * One operator's override as a backend stores it: the limit as written (a rate such as {@code 7500/1h}, a
 * concurrency number, or {@code unlimited}) for one hashed key of one rule, until an end time. Immutable.
 *
 * @param rule        the rule's name ({@code [A-Za-z0-9_-]+})
 * @param hashedKey   the key value, hashed as the engine names keys: free of user-supplied characters
 * @param limit       the limit, in its canonical form
 * @param untilMillis when it ends (epoch milliseconds, the setting server's wall clock)
 */
public record StoredOverride(String rule, String hashedKey, String limit, long untilMillis) {
    /**
     * @param rule        the rule's name
     * @param hashedKey   the key value, hashed
     * @param limit       the limit, in its canonical form
     * @param untilMillis when it ends (epoch milliseconds)
     */
    public StoredOverride {
        Objects.requireNonNull(rule);
        Objects.requireNonNull(hashedKey);
        Objects.requireNonNull(limit);
    }
}
