package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.Decision;
import io.sluice.rule.Rule;
import io.sluice.rule.Throttling;
import io.sluice.spi.Entry;
import io.sluice.spi.Refunding;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Rate permits given back to the backend: those of a request another rule rejected ({@link RateDecider#giveBack}),
 * and those a late answer admitted for a request the failure policy denied meanwhile. Thread-safe.
 */
final class Refunds {
    /** Null for a backend that cannot refund: permits once taken stay taken. */
    private final Refunding refunding;
    private final BackendGuard guard;
    private final Shield shield;
    private final Prefetcher prefetcher;

    Refunds(Refunding refunding, BackendGuard guard, Shield shield, Prefetcher prefetcher) {
        this.refunding = refunding;
        this.guard = guard;
        this.shield = shield;
        this.prefetcher = prefetcher;
    }

    /**
     * Whether what a decision of {@code rule} admitted can be given back: refundable algorithms under hard or soft
     * throttling only. A leaky bucket's slot cannot be given back, and an elastic decision may have borrowed from
     * its capacity rule, which its answer does not say; both keep what they took.
     */
    static boolean refundable(Rule rule) {
        return rule.ratePolicy().throttling() != Throttling.ELASTIC && rule.ratePolicy().algorithm().refundable();
    }

    /**
     * Gives {@code request}'s permits back to the backend, within the deadline: those kept under {@code entry} (the
     * token its admitted answer carried; null: unknown, the backend's newest of that cost); a prefetcher learns the key
     * has them. A failed hand-back leaves the permits counted: the safe side.
     */
    CompletionStage<Void> refund(Rule rule, RateRequest request, Entry entry) {
        // What the shield knew of the key counted these permits as taken.
        shield.forget(request.key());
        // A backend that cannot refund keeps the permits until its window frees them.
        if (refunding == null) return CompletableFuture.completedFuture(null);
        CompletionStage<Long> refund;
        try {
            refund = refunding.refundCredited(request, entry);
        } catch (RuntimeException e) {
            refund = CompletableFuture.failedFuture(e);
        }
        // Again once it has landed: an answer Redis computed before it (asked after the forget above, on another
        // connection) counted these permits, and the shield must neither keep nor learn it (a success of count=failure
        // was rejected beside 4 in flight of 5).
        refund = refund.whenComplete((v, e) -> shield.forget(request.key()));
        // The key has what its count got back besides this server's stocks: nothing when the window it was counted in
        // has ended.
        if (prefetcher != null && rule.ratePolicy().prefetches()) {
            refund = refund.thenApply(credited -> {
                if (credited > 0) prefetcher.refunded(request.withCost(Math.min(credited, request.cost())));
                return credited;
            });
        }
        return guard.bounded(refund, guard.timeout()).handle((v, e) -> null);
    }

    /**
     * What Redis did late is undone: a call answered after its deadline, whose request {@code on-backend-failure}
     * denied meanwhile, gave back what it admitted (a permit the request never used); so does one decided meanwhile by
     * this server's share ({@code local}), which counted the request itself. Failed open, the request went on: its
     * permit is its own. Not undone where a rejection's are not either ({@link #refundable}), except an
     * elastic decision of a counting algorithm: its late answer says whether it went over the nominal limit, and
     * then its {@code capacity} rule paid (an answer over the limit that was not paid is a rejection), so that payment
     * goes back too, where the capacity rule's algorithm can refund, by the entry its answer named ({@link RateCall.Payment}:
     * a log's own entry, not the newest of that cost). What the answer shows within the nominal limit goes back to the
     * nominal limit's count ({@link #paidFor}). A leaky bucket's late slot goes back while it is still the last one
     * scheduled (issue 21, seed 859683050). Which of these is {@link LateUndo}'s to say.
     */
    void undoIfDenied(RateAsk ask, Decision failed, RateOutcome late, RateCall.Payment capacity) {
        boolean ours = failed.rejects() || failed.outcome() == Decision.Outcome.FAILED_LOCAL;
        if (!late.allowed() || !ours) return;
        Rule rule = ask.rule();
        switch (LateUndo.of(rule, late)) {
            case KEEP -> { }
            case OWN -> refund(rule, paidFor(ask.request(), late.overLimit()), late.entry());
            case SLOT -> refund(rule, ask.request(), late.entry());
            case OWN_AND_CAPACITY -> {
                refund(rule, ask.request(), late.entry());
                if (capacity != null && capacity.rule().ratePolicy().algorithm().refundable()) {
                    refund(capacity.rule(), capacity.request(), capacity.entry().get());
                }
            }
        }
    }

    /**
     * {@code request} as what paid for it: within the nominal limit, the request at that limit, so that a token
     * bucket with an overage gets the tokens back into the bucket, not into the overage's (which it did not touch).
     */
    static RateRequest paidFor(RateRequest request, boolean overLimit) {
        return overLimit ? request : request.withEffectiveLimit(request.limit());
    }
}
