package io.sluice.rule;

/** What a rule decides when the backend cannot answer in time. */
public enum FailurePolicy {
    /** Admit the request (fail open): an outage of Redis does not take the site down. */
    ALLOW,
    /** Reject the request (fail closed): for limits that protect something that must not be overrun. */
    DENY
}
