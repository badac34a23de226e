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
 * @param endsInMillis how long after the backend took them the permits may be handed out at most, whatever the hold
 *                  (the server hands them out until the earlier of the two ends): a window counter's stock ends with
 *                  the window it was counted in, since a permit used in the next window would be admitted past that
 *                  window's limit; {@link #NO_END} when only the hold ends it
 * @param stockEntry where the backend counted the permits taken ahead, as {@link RateOutcome#entry()} names a request's:
 *                  a window counter's window, so that a permit paid from the stock and given back comes off that
 *                  window; null when the backend keeps none (a log's stock, a bucket's) or took nothing
 */
public record Prefetch(RateOutcome outcome, RateRequest request, long taken, long remaining, Receipt receipt,
                       long endsInMillis, Entry.WindowIndex stockEntry) {
    /** {@link #endsInMillis()} of a stock that only its hold ends (a sliding log's, a token bucket's). */
    public static final long NO_END = Long.MAX_VALUE;

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

        /**
         * The entry of permits this server paid from the stock {@code beforeEndMillis} before its hold ended, for their
         * give-back ({@link Refunding#refund(RateRequest, Entry)}): once the stock is back, a log keeps them under the
         * stock's id at the time of their use ({@link PrefetchUse}), and a give-back naming this use takes them off
         * that use, not off another request's.
         *
         * @param beforeEndMillis how long before the hold's end the permits were used, at least 0
         * @return the use
         */
        public Entry.StockUse use(long beforeEndMillis) {
            return new Entry.StockUse(stockId, beforeEndMillis);
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
     * @param endsInMillis how long after the backend took them they may be handed out at most
     * @param stockEntry where the backend counted them (null: not kept)
     */
    public Prefetch {
        if (taken < 0) throw new IllegalArgumentException("taken must not be negative: " + taken);
        if (request.cost() != 1) throw new IllegalArgumentException("a prefetched permit costs 1: " + request.cost());
        if (endsInMillis < 0) throw new IllegalArgumentException("endsInMillis must not be negative: " + endsInMillis);
    }

    /**
     * Permits the backend counts under no entry of their own.
     *
     * @param outcome   the request's own decision
     * @param request   a request for one prefetched permit
     * @param taken     permits taken ahead
     * @param remaining permits left after them
     * @param receipt   the backend's note for handing permits back
     * @param endsInMillis how long after the backend took them they may be handed out at most
     */
    public Prefetch(RateOutcome outcome, RateRequest request, long taken, long remaining, Receipt receipt, long endsInMillis) {
        this(outcome, request, taken, remaining, receipt, endsInMillis, null);
    }

    /**
     * Permits that only their hold ends ({@link #NO_END}).
     *
     * @param outcome   the request's own decision
     * @param request   a request for one prefetched permit
     * @param taken     permits taken ahead
     * @param remaining permits left after them
     * @param receipt   the backend's note for handing permits back
     */
    public Prefetch(RateOutcome outcome, RateRequest request, long taken, long remaining, Receipt receipt) {
        this(outcome, request, taken, remaining, receipt, NO_END);
    }

    /**
     * When a server that took these permits at {@code takenAt} (on its own time base, before the backend took them)
     * stops handing them out: at the end of its {@code hold}, or earlier when the backend said they end sooner.
     *
     * @param takenAt when the server asked for them (ms)
     * @param hold    the rule's {@code prefetch-hold}
     * @return the time (ms, the same base as {@code takenAt}) from which they are no longer handed out
     */
    public long usableUntil(long takenAt, Duration hold) {
        return takenAt + Math.min(hold.toMillis(), endsInMillis);
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
     * Whether Sluice's own backends take permits ahead for {@code r}: every algorithm but the leaky bucket (which paces
     * requests: a stock would admit them unpaced), without an overage, at least one. Each takes a run of permits at once
     * and hands back exactly the unused ones; a window counter's stock ends with its window ({@link #endsInMillis}).
     *
     * @param r     the request
     * @param ahead permits asked ahead
     * @return true when they prefetch
     */
    public static boolean supported(RateRequest r, long ahead) {
        return r.algorithm() != Algorithm.LEAKY_BUCKET && ahead >= 1 && !r.overage();
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
