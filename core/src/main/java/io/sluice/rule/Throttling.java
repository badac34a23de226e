package io.sluice.rule;

/** How strictly a rate rule holds its limit (the rule property {@code throttling}). */
public enum Throttling {
    /** Never above the limit. */
    HARD,
    /** Up to {@code overage} above the limit; headers still advertise the nominal limit. */
    SOFT,
    /** Up to {@code overage} above the limit, each permit over it paid from the {@code capacity} rule's spare permits. */
    ELASTIC
}
