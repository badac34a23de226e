package io.sluice.rule;

/** What a rule does when its key cannot be resolved, such as {@code user} for an anonymous request. */
public enum MissingKeyPolicy {
    /** The rule does not apply to the request. */
    SKIP,
    /** The request is rejected by the rule. */
    DENY
}
