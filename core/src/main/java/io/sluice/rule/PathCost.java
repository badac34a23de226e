package io.sluice.rule;

/**
 * One entry of a rule's {@code costs}: requests whose path matches {@code pattern} take {@code cost} permits.
 * Immutable.
 */
public record PathCost(PathPattern pattern, long cost) {
    static final String EXPECTED = "comma-separated <url-pattern>=<cost> such as /api/export/*=10, /api/search=2 (each cost from 1 to "
            + RatePolicy.MAX_COST + ")";

    @Override
    public String toString() {
        return pattern + "=" + cost;
    }
}
