package io.sluice.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * A prefetching backend's answer ({@link Prefetching#tryConsumeAndPrefetch}, {@link Prefetching#prefetch}): the
 * request's own decision, and the permits taken ahead of need for this server to hand out by itself. Immutable.
 *
 * @param outcome   the request's own decision, as {@link LimiterBackend#tryConsume} would have answered it
 * @param request   a request for one of the prefetched permits (the decided request at cost 1)
 * @param taken     permits taken ahead, 0 to the prefetch asked for (as many as fitted after the request)
 * @param remaining nominal permits the key had left after the prefetch
 * @param receipt   what the backend needs to hand back unused permits ({@link Prefetching#returnPrefetched}); null
 *                  when none were taken
 */
public record Prefetch(RateOutcome outcome, RateRequest request, long taken, long remaining, Receipt receipt) {
    /**
     * What a backend wrote down to find prefetched permits again when they are handed back: the id it stored them
     * under (a log's entry, a bucket's loan) and how many it stored. Only the backend that wrote it reads it.
     *
     * @param stockId the permits' id in the store
     * @param permits how many were stored under it
     */
    public record Receipt(String stockId, long permits) {
        /**
         * Checks the receipt.
         *
         * @param stockId the permits' id in the store
         * @param permits how many were stored under it
         */
        public Receipt {
            Objects.requireNonNull(stockId, "stockId");
            if (permits < 1) throw new IllegalArgumentException("a receipt is for at least one permit: " + permits);
        }
    }

    /**
     * How long after its hold a token bucket's stock still counts as lent, for its hand-back to arrive: the bucket
     * refills only up to its burst less the stocks lent, so that it and every server's stock together never hold more
     * than a bucket without prefetch. Past this a stock counts as used.
     */
    public static final Duration RETURN_GRACE = Duration.ofSeconds(1);

    /**
     * Checks the numbers.
     *
     * @param outcome   the request's own decision
     * @param request   a request for one prefetched permit
     * @param taken     permits taken ahead
     * @param remaining permits left after them
     * @param receipt   the backend's note for handing permits back
     */
    public Prefetch {
        if (taken < 0) throw new IllegalArgumentException("taken must not be negative: " + taken);
        if (request.cost() != 1) throw new IllegalArgumentException("a prefetched permit costs 1: " + request.cost());
    }

    /**
     * The request decided alone, nothing taken ahead: what a backend that cannot prefetch answers.
     *
     * @param request the decided request
     * @param outcome its decision
     * @return a prefetch of nothing
     */
    public static Prefetch none(RateRequest request, RateOutcome outcome) {
        return new Prefetch(outcome, request.withCost(1), 0, outcome.remaining(), null);
    }

    /**
     * Nothing taken, no request decided: what a backend answers a {@link Prefetching#prefetch} for an algorithm it
     * cannot prefetch for.
     *
     * @param permit a request for one permit
     * @return a prefetch of nothing, its outcome not allowed
     */
    public static Prefetch nothing(RateRequest permit) {
        return new Prefetch(new RateOutcome(false, 0, 0, 0), permit.withCost(1), 0, 0, null);
    }

    /**
     * Whether Sluice's own backends take permits ahead for {@code r}: a sliding log or a token bucket (the two whose
     * scripts take a run of permits at once and hand back exactly the unused ones), without an overage, at least one.
     *
     * @param r     the request
     * @param ahead permits asked ahead
     * @return true when they prefetch
     */
    public static boolean supported(RateRequest r, long ahead) {
        return (r.algorithm() == Algorithm.SLIDING_LOG || r.algorithm() == Algorithm.TOKEN_BUCKET) && ahead >= 1 && !r.overage();
    }

    /**
     * Checks a hand-back of {@code unused} of these permits.
     *
     * @param unused permits to hand back
     * @return false when there is nothing to hand back
     * @throws IllegalArgumentException for more than were taken
     */
    public boolean handsBack(long unused) {
        if (unused > taken) throw new IllegalArgumentException("handing back " + unused + " of " + taken + " prefetched");
        return unused >= 1;
    }
}
