package io.sluice.rule;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a rate rule counts and how strictly: the rule properties {@code algorithm}, {@code burst},
 * {@code queue}, {@code throttling}, {@code overage}, {@code capacity}, {@code cost}, {@code costs}, {@code prefetch}
 * and {@code prefetch-hold}.
 * Built by {@link RuleParser}, which has checked every combination; immutable and thread-safe.
 *
 * @param algorithm      how the rule counts
 * @param burst          {@code token-bucket}: the bucket's capacity; 0 for the rate's permits
 * @param queue          {@code leaky-bucket}: requests that may wait for their slot
 * @param throttling     hard, soft or elastic
 * @param overagePercent soft/elastic: how far over the limit a key may go, in percent; 0 for hard
 * @param capacity       elastic: the name of the {@code global} rate rule that pays for requests over the limit
 * @param cost           permits one matched request takes
 * @param costs          per-path costs, first match wins, else {@code cost}
 * @param prefetch       permits a server takes from a key ahead of need and hands out itself: a fixed number, sized by
 *                       each key's demand ({@code auto}), or none
 * @param prefetchHold   how long a server keeps prefetched permits before it hands the unused ones back
 */
public record RatePolicy(Algorithm algorithm, long burst, long queue, Throttling throttling, int overagePercent,
                         Optional<String> capacity, long cost, List<PathCost> costs, PrefetchSize prefetch, Duration prefetchHold) {

    /**
     * A sliding log, hard, cost 1, nothing prefetched: what a rule built in code without these gets (the parser gives a
     * rule without {@code prefetch} {@code auto} where it is allowed).
     */
    public static final RatePolicy DEFAULT =
            new RatePolicy(Algorithm.SLIDING_LOG, 0, 0, Throttling.HARD, 0, Optional.empty(), 1, List.of(), PrefetchSize.OFF, Duration.ZERO);
    /** The most permits one request may cost, from any source (rules file, {@code @LimitCost}, {@code withCost}). */
    public static final long MAX_COST = RateRequest.MAX_COST;
    /**
     * A token bucket's {@code burst} and a leaky bucket's {@code queue} are at most this many times the rate's
     * permits: a full bucket or queue is at most this many periods of pace, which keeps the scripts' times exact.
     */
    public static final long MAX_PERIODS_AHEAD = 100;
    static final int DEFAULT_SOFT_OVERAGE = 10;
    static final int DEFAULT_ELASTIC_OVERAGE = 100;

    public RatePolicy {
        costs = List.copyOf(costs);
        Objects.requireNonNull(prefetch, "prefetch");
    }

    /** This policy with another burst (a plan's). */
    public RatePolicy withBurst(long burst) {
        return new RatePolicy(algorithm, burst, queue, throttling, overagePercent, capacity, cost, costs, prefetch, prefetchHold);
    }

    /** This policy with another {@code prefetch} and hold. */
    public RatePolicy withPrefetch(PrefetchSize prefetch, Duration prefetchHold) {
        return new RatePolicy(algorithm, burst, queue, throttling, overagePercent, capacity, cost, costs, prefetch, prefetchHold);
    }

    /** Whether a server may take permits ahead of need ({@code prefetch}, fixed or {@code auto}). */
    public boolean prefetches() {
        return prefetch.on();
    }

    /** The limit actually enforced for a rate of {@code permits}: {@code permits x (1 + overage)}, rounded down. */
    public long effectiveLimit(long permits) {
        if (overagePercent == 0) return permits;
        // floor(permits x overage / 100) without overflowing for large permits
        return permits + permits / 100 * overagePercent + permits % 100 * overagePercent / 100;
    }

    /** The token bucket's capacity for a rate of {@code permits}. */
    public long burstFor(long permits) {
        return burst > 0 ? burst : permits;
    }

    /** The cost of a request to {@code path} (the path inside the application); {@code cost} when no entry matches. */
    public long costFor(String path) {
        for (PathCost c : costs) if (c.pattern().matches(path)) return c.cost();
        return cost;
    }

    /** The most permits one request can ever take under a rate of {@code permits} ({@link RateRequest#mostAtOnce}). */
    public long capacityFor(long permits) {
        return new RateRequest("", algorithm, permits, Duration.ofMillis(1), 1, burstFor(permits), queue, effectiveLimit(permits))
                .mostAtOnce();
    }

    /** The backend request of this policy for the rule's {@code rate}, under {@code key}, for one request of {@code cost}. */
    public RateRequest request(String key, Rate rate, long cost) {
        long permits = rate.permits();
        return new RateRequest(key, algorithm, permits, rate.period(), cost, burstFor(permits), queue, effectiveLimit(permits));
    }
}
