package io.sluice.rule;

/**
 * A rule's {@code when}: the requests it applies to by authentication. A rule that does not apply to a request is
 * as a rule whose {@code paths} do not match it: no decision, no headers.
 */
public enum When {
    /** Every request (the default). */
    ALWAYS,
    /** Requests without an authenticated user. */
    ANONYMOUS,
    /** Requests with an authenticated user. */
    AUTHENTICATED;

    /**
     * Whether a rule with this {@code when} applies to a request of that user.
     *
     * @param userName the request's authenticated user, or null (or empty) when anonymous
     * @return whether the rule applies
     */
    public boolean appliesTo(String userName) {
        boolean authenticated = userName != null && !userName.isEmpty();
        return switch (this) {
            case ALWAYS -> true;
            case ANONYMOUS -> !authenticated;
            case AUTHENTICATED -> authenticated;
        };
    }
}
