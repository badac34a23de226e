package io.sluice.spi;

import java.util.Locale;
import java.util.Optional;

/**
 * How a rate rule counts (the rule property {@code algorithm}). Every algorithm but {@link #SLIDING_LOG}
 * runs on the store's own clock and keeps constant memory per key whatever the limit.
 */
public enum Algorithm {
    /** Redisson {@code RRateLimiter}'s log of permits: exact in every rolling window; memory grows with the limit. */
    SLIDING_LOG("sliding-log"),
    /** Capacity {@code burst}, refilled continuously (GCRA: one timestamp per key). */
    TOKEN_BUCKET("token-bucket"),
    /** A constant pace; up to {@code queue} requests may wait for their slot. */
    LEAKY_BUCKET("leaky-bucket"),
    /** A counter per window, windows aligned to multiples of the period. */
    FIXED_WINDOW("fixed-window"),
    /** The current and the previous fixed window, the previous weighted by its overlap with the rolling window. */
    SLIDING_WINDOW("sliding-window");

    /** The values the rule property accepts, for error messages. */
    public static final String EXPECTED = "one of sliding-log, token-bucket, leaky-bucket, fixed-window, sliding-window";

    private final String id;

    Algorithm(String id) {
        this.id = id;
    }

    /**
     * The name used in the rules file and in Redis key names.
     *
     * @return the name, such as {@code token-bucket}
     */
    public String id() {
        return id;
    }

    /**
     * Whether permits taken can be handed back ({@code LimiterBackend.refund}).
     *
     * @return false for the leaky bucket, whose slots are a pace, not permits
     */
    public boolean refundable() {
        return this != LEAKY_BUCKET;
    }

    /**
     * Whether permits can be taken past the limit ({@code Charging.charge}), which settling a request's actual cost needs.
     *
     * @return true for the token bucket and the two window counters; a log holds one entry per permit of its limit, and
     *         a leaky bucket's slots are a pace
     */
    public boolean settleable() {
        return this == TOKEN_BUCKET || this == FIXED_WINDOW || this == SLIDING_WINDOW;
    }

    /**
     * Parses the rules file's spelling (case-insensitive).
     *
     * @param text the value of an {@code algorithm} property
     * @return the algorithm, or empty for an unknown name
     */
    public static Optional<Algorithm> parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (Algorithm a : values()) if (a.id.equals(t)) return Optional.of(a);
        return Optional.empty();
    }

    @Override
    public String toString() {
        return id;
    }
}
