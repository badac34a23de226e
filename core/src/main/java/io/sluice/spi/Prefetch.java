package io.sluice.spi;

/**
 * The backend's answer to {@link LimiterBackend#tryConsumeAndPrefetch}: the request's own decision, and the permits
 * taken ahead of need for this server to hand out by itself. Immutable.
 *
 * @param outcome   the request's own decision, as {@link LimiterBackend#tryConsume} would have answered it
 * @param request   a request for one of the prefetched permits (the decided request at cost 1)
 * @param taken     permits taken ahead, 0 to the prefetch asked for (as many as fitted after the request)
 * @param remaining nominal permits the key had left after the prefetch
 * @param receipt   what the backend needs to hand back unused permits ({@link LimiterBackend#returnPrefetched}); null
 *                  when none were taken
 */
public record Prefetch(RateOutcome outcome, RateRequest request, long taken, long remaining, String receipt) {

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
}
