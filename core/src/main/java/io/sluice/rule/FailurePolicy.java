package io.sluice.rule;

/** What a rule decides when the backend cannot answer in time. */
public enum FailurePolicy {
    /** Admit the request (fail open): an outage of Redis does not take the site down. */
    ALLOW,
    /** Reject the request (fail closed): for limits that protect something that must not be overrun. */
    DENY,
    /**
     * Limit locally (extension of the choice): each server decides the key in memory, by its share of the limit (the
     * limit divided by the servers alive before the backend failed, or {@code sluice.local-share}; at least 1).
     */
    LOCAL
}
