package io.sluice.engine.rate;

import io.sluice.spi.Entry;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.Refunding;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Elastic throttling over two keys: the rule's own key and its {@code capacity} rule's {@code global} key, which
 * may live in another cluster slot, so no one script can decide both. The order keeps both promises: a key is
 * never above {@code limit x (1 + overage)} (its own script enforces that), and the capacity rule never gives
 * more than it has (its own script takes the permits or rejects):
 * <ol>
 *   <li>the own key at the effective limit: rejected, or admitted within the nominal limit, is the answer
 *       (one round trip, as for a hard rule);</li>
 *   <li>admitted over the nominal limit: the capacity key pays the same cost, as the capacity rule's own requests
 *       do. Paid: admitted, after the capacity rule's delay when it is a leaky bucket (its slot);</li>
 *   <li>not paid: the own key's permits are handed back ({@link Refunding#refund}; on a backend that cannot refund, they stay taken) and the request is
 *       rejected with the capacity rule's retry-after.</li>
 * </ol>
 * Between steps 1 and 3 the own key counts a request it will give back: a concurrent request of the same key
 * may be rejected that would have fit, never the other way round. A failed capacity call refunds too and
 * fails the decision (the caller's failure policy applies). Thread-safe (stateless).
 */
public final class Elastic {
    private Elastic() {
    }

    /**
     * @param refunding the backend's refunds, null when it cannot refund
     * @param own      the rule's request, its {@code effectiveLimit} the limit plus the overage
     * @param capacity the capacity rule's request, as its own requests are built; its cost is replaced by the own
     *                 cost. Null when there is no capacity rule: nothing pays, so the rule holds its nominal limit
     */
    public static CompletionStage<RateOutcome> consume(LimiterBackend backend, Refunding refunding, RateRequest own,
                                                   RateRequest capacity) {
        return consume(backend, refunding, own, capacity, paidEntry -> { });
    }

    /**
     * As {@link #consume(LimiterBackend, Refunding, RateRequest, RateRequest)}; paid, {@code paidEntry} is told where the
     * capacity rule's backend keeps the payment ({@link RateOutcome#entry()}; null: none) before the answer completes.
     *
     * @param paidEntry told the payment's entry when the capacity rule paid
     */
    public static CompletionStage<RateOutcome> consume(LimiterBackend backend, Refunding refunding, RateRequest own,
                                                   RateRequest capacity, Consumer<Entry> paidEntry) {
        return backend.tryConsume(own).thenCompose(o -> {
            if (!o.allowed() || !o.overLimit()) return CompletableFuture.completedFuture(o);
            RateRequest pay = capacity == null ? null : capacity.withCost(own.cost());
            CompletionStage<RateOutcome> payment = pay == null
                    ? CompletableFuture.completedFuture(new RateOutcome(false, 0, 0, o.resetMillis()))
                    // A cost the capacity rule never admits is never handed to its script.
                    : pay.neverFits() ? CompletableFuture.completedFuture(new RateOutcome(false, 0, 0, RateOutcome.NEVER_FITS))
                    : backend.tryConsume(pay);
            return payment.handle((paid, failure) -> {
                // Paid: admitted, at the capacity rule's pace when it is a leaky bucket (it lends as it admits).
                if (failure == null && paid.allowed()) {
                    paidEntry.accept(paid.entry());
                    return CompletableFuture.completedFuture(paid.delayMillis() == 0 ? o
                            : new RateOutcome(true, o.remaining(), o.resetMillis(), 0, paid.delayMillis(), true, o.entry()));
                }
                // Not paid for: hand the permits back whatever happens to the refund itself.
                CompletionStage<Void> refunded = refunding == null ? CompletableFuture.completedFuture(null)
                        : refunding.refund(own, o.entry()).exceptionally(e -> null);
                if (failure != null) return refunded.thenCompose(ignored -> CompletableFuture.<RateOutcome>failedFuture(failure));
                long retry = paid.neverFits() ? Math.max(1, o.resetMillis()) : paid.retryAfterMillis();
                RateOutcome rejected = new RateOutcome(false, 0, o.resetMillis(), retry, 0, false);
                return refunded.thenApply(ignored -> rejected);
            }).thenCompose(stage -> stage);
        });
    }
}
