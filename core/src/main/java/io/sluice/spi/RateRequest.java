package io.sluice.spi;

import java.time.Duration;

/**
 * One rate decision to make: take {@code cost} permits from the limit stored under {@code key}, counted by
 * {@code algorithm}. Immutable.
 *
 * @param key            the backend key, already namespaced and free of user-supplied characters
 * @param algorithm      how the limit counts
 * @param limit          nominal permits per period: what headers advertise and {@code remaining} counts down from
 * @param period         the window ({@code sliding-log}, windows) or refill period (buckets)
 * @param cost           permits this request takes, at least 1
 * @param burst          {@code token-bucket}: the bucket's capacity (defaults to {@code limit}); else unused
 * @param queue          {@code leaky-bucket}: requests that may wait for their slot; else unused
 * @param effectiveLimit the limit actually enforced: {@code limit} for hard throttling, {@code limit x (1 + overage)}
 *                       for soft and elastic
 * @param blockMillis    the rule's {@code block}: when this request is rejected, every request of the key is rejected
 *                       for this long (the backend checks and starts the block in the same atomic step as the
 *                       decision); 0 for none
 */
public record RateRequest(String key, Algorithm algorithm, long limit, Duration period, long cost,
                          long burst, long queue, long effectiveLimit, long blockMillis) {

    /**
     * The most permits one request may cost, whatever the rule: the scripts compute exactly (in Lua's doubles) with
     * costs up to this, and a log entry's permits fit its 32-bit field. A higher cost never fits ({@link #neverFits}).
     */
    public static final long MAX_COST = 1_000_000_000L;

    /**
     * Checks the request's numbers.
     *
     * @param key            the backend key, namespaced and free of user-supplied characters
     * @param algorithm      how to count
     * @param limit          the advertised permits per period
     * @param period         the period
     * @param cost           permits this request takes
     * @param burst          a token bucket's capacity
     * @param queue          how many requests a leaky bucket lets wait for their slot
     * @param effectiveLimit the limit enforced: {@code limit}, or above it under soft or elastic throttling
     * @param blockMillis    how long a rejection blocks the key, 0 for no block
     */
    public RateRequest {
        if (limit < 1) throw new IllegalArgumentException("limit must be at least 1: " + limit);
        if (cost < 1) throw new IllegalArgumentException("cost must be at least 1: " + cost);
        if (burst < 1) throw new IllegalArgumentException("burst must be at least 1: " + burst);
        if (queue < 0) throw new IllegalArgumentException("queue must not be negative: " + queue);
        if (effectiveLimit < limit) throw new IllegalArgumentException("effective limit below the limit: " + effectiveLimit);
        if (blockMillis < 0) throw new IllegalArgumentException("block must not be negative: " + blockMillis);
    }

    /**
     * A request without a block.
     *
     * @param key            the backend key, namespaced and free of user-supplied characters
     * @param algorithm      how to count
     * @param limit          the advertised permits per period
     * @param period         the period
     * @param cost           permits this request takes
     * @param burst          a token bucket's capacity
     * @param queue          how many requests a leaky bucket lets wait for their slot
     * @param effectiveLimit the limit enforced: {@code limit}, or above it under soft or elastic throttling
     */
    public RateRequest(String key, Algorithm algorithm, long limit, Duration period, long cost,
                       long burst, long queue, long effectiveLimit) {
        this(key, algorithm, limit, period, cost, burst, queue, effectiveLimit, 0);
    }

    /**
     * A hard {@code sliding-log} decision, as Sluice made before it had other algorithms.
     *
     * @param key    the backend key
     * @param limit  permits per period
     * @param period the period
     * @param cost   permits this request takes
     */
    public RateRequest(String key, long limit, Duration period, long cost) {
        this(key, Algorithm.SLIDING_LOG, limit, period, cost, limit, 0, limit);
    }

    /**
     * A hard decision of {@code algorithm} at cost 1, with the default burst and no queue.
     *
     * @param algorithm how to count
     * @param key       the backend key
     * @param limit     permits per period
     * @param period    the period
     * @return the request
     */
    public static RateRequest of(Algorithm algorithm, String key, long limit, Duration period) {
        return new RateRequest(key, algorithm, limit, period, 1, limit, 0, limit);
    }

    /**
     * @param cost permits this request takes
     * @return this request at that cost
     */
    public RateRequest withCost(long cost) {
        return new RateRequest(key, algorithm, limit, period, cost, burst, queue, effectiveLimit, blockMillis);
    }

    /**
     * @param burst a token bucket's capacity
     * @return this request with that burst
     */
    public RateRequest withBurst(long burst) {
        return new RateRequest(key, algorithm, limit, period, cost, burst, queue, effectiveLimit, blockMillis);
    }

    /**
     * @param queue how many requests a leaky bucket lets wait for their slot
     * @return this request with that queue
     */
    public RateRequest withQueue(long queue) {
        return new RateRequest(key, algorithm, limit, period, cost, burst, queue, effectiveLimit, blockMillis);
    }

    /**
     * @param effectiveLimit the limit enforced (above {@code limit} under soft or elastic throttling)
     * @return this request with that enforced limit
     */
    public RateRequest withEffectiveLimit(long effectiveLimit) {
        return new RateRequest(key, algorithm, limit, period, cost, burst, queue, effectiveLimit, blockMillis);
    }

    /**
     * @param key another backend key
     * @return this request on that key
     */
    public RateRequest withKey(String key) {
        return new RateRequest(key, algorithm, limit, period, cost, burst, queue, effectiveLimit, blockMillis);
    }

    /**
     * @param blockMillis how long a rejection blocks the key (0: no block)
     * @return this request with that block
     */
    public RateRequest withBlock(long blockMillis) {
        return new RateRequest(key, algorithm, limit, period, cost, burst, queue, effectiveLimit, blockMillis);
    }

    /**
     * Whether a rejection of this request blocks its key.
     *
     * @return true when {@link #blockMillis()} is above 0
     */
    public boolean blocks() {
        return blockMillis > 0;
    }

    /**
     * The enforced bucket capacity of a token bucket: {@code burst} scaled like the limit by the overage.
     *
     * @return the capacity enforced
     */
    public long effectiveBurst() {
        if (effectiveLimit == limit) return burst;
        return (long) Math.floor((double) burst * effectiveLimit / limit);
    }

    /**
     * The most permits one request can ever take: a token bucket's {@code burst} (or, with an overage, the larger of
     * {@code burst} and the overage's own bucket, {@code effectiveBurst - burst}), else the enforced limit (for a leaky
     * bucket: one period of its pace); never above {@link #MAX_COST}.
     *
     * @return the largest cost that may ever be admitted
     */
    public long mostAtOnce() {
        long most = algorithm == Algorithm.TOKEN_BUCKET
                ? overage() ? Math.max(burst, effectiveBurst() - burst) : burst
                : effectiveLimit;
        return Math.min(most, MAX_COST);
    }

    /**
     * Whether this request's cost is above {@link #mostAtOnce}: no wait would let it fit, so it is rejected without
     * asking the backend (whose scripts are never handed such a cost).
     *
     * @return true when the cost can never be admitted
     */
    public boolean neverFits() {
        return cost > mostAtOnce();
    }

    /**
     * Whether the enforced limit is above the advertised one (soft or elastic throttling).
     *
     * @return true under an overage
     */
    public boolean overage() {
        return effectiveLimit > limit;
    }
}
