package io.sluice.engine.rate;

import io.sluice.rule.Rule;
import io.sluice.rule.Throttling;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;

/**
 * What a late admission gives back when its request was denied meanwhile ({@code on-backend-failure}, or decided by
 * this server's share), by the rule's algorithm and throttling and by what the answer says.
 */
enum LateUndo {
    /**
     * Nothing: a leaky bucket's slot its answer did not name, or an elastic decision the answer cannot tell apart (a
     * token bucket's over its limit: what it borrowed of the overage's bucket is not said; an algorithm that cannot
     * give back).
     */
    KEEP,
    /** The request's own permits, to the count that paid them ({@link Refunds#paidFor}). */
    OWN,
    /** A leaky bucket's slot, by the end its answer named, while no later slot is scheduled. */
    SLOT,
    /** An elastic decision over its nominal limit: its own permits, and what its capacity rule paid for it. */
    OWN_AND_CAPACITY;

    /** The undo of {@code late}, an admission of {@code rule}. */
    static LateUndo of(Rule rule, RateOutcome late) {
        Algorithm algorithm = rule.ratePolicy().algorithm();
        boolean elastic = rule.ratePolicy().throttling() == Throttling.ELASTIC;
        // (A leaky bucket is never elastic: a pace has no permits to borrow.)
        if (algorithm == Algorithm.LEAKY_BUCKET) return late.entry() != null ? SLOT : KEEP;
        if (!algorithm.refundable()) return KEEP;
        if (!elastic || !late.overLimit()) return OWN;
        return algorithm == Algorithm.TOKEN_BUCKET ? KEEP : OWN_AND_CAPACITY;
    }
}
