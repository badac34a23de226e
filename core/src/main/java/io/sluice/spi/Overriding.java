package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * A backend's capability to keep operators' overrides (a limit for one key of one rule, until an end time) where
 * every server reads them, with a version that changes on every write so that a server polls one number and reads
 * the overrides again only when it changed. Without it, {@code Sluice.override} is refused. Keys are handed over
 * hashed ({@link StoredOverride#hashedKey()}): nothing user-supplied reaches the store.
 */
public interface Overriding {
    /** The most overrides one key prefix keeps; a put beyond it is refused. */
    int MAX_OVERRIDES = 10_000;

    /**
     * Puts (or replaces) the override of its rule and hashed key, forgets overrides ended by {@code nowMillis}, and
     * changes the version. The stored overrides expire when the last of them ends.
     *
     * @param prefix    the namespace of every key ({@code sluice.key-prefix})
     * @param override  the override
     * @param nowMillis the caller's wall time, against which ends are compared
     * @return completes once stored; exceptionally with {@link RequestRefusedException} when
     *         {@link #MAX_OVERRIDES} are in effect already
     */
    CompletionStage<Void> putOverride(String prefix, StoredOverride override, long nowMillis);

    /**
     * Removes the override of a rule and hashed key, and changes the version when there was one.
     *
     * @param prefix    the namespace of every key ({@code sluice.key-prefix})
     * @param rule      the rule's name
     * @param hashedKey the key value, hashed
     * @return whether there was one
     */
    CompletionStage<Boolean> removeOverride(String prefix, String rule, String hashedKey);

    /**
     * The version of the overrides, read once a second by every server.
     *
     * @param prefix the namespace of every key ({@code sluice.key-prefix})
     * @return the version: 0 when none are stored (never, or all have expired)
     */
    CompletionStage<Long> overridesVersion(String prefix);

    /**
     * Every override stored, with the version they are of, read in one atomic step.
     *
     * @param prefix the namespace of every key ({@code sluice.key-prefix})
     * @return the overrides
     */
    CompletionStage<StoredOverrides> overrides(String prefix);
}
