package io.sluice.rule;

import io.sluice.spi.Algorithm;

import java.time.Duration;
import java.util.Optional;

/**
 * Where {@code prefetch=auto} (a rule's default) may take permits ahead, and how many at most: only where a fixed
 * {@code prefetch} is allowed, only on a limit large enough that the stocks all servers may hold stay a small share of
 * it ({@link #SHARE_DIVISOR}) and still a stock worth its call ({@link #SMALLEST_STOCK}), never beside a {@code block}
 * or a {@code settle}. A {@code 10/1h} rule never prefetches; a {@code 10000/1s} one may, 100 permits among all
 * servers.
 */
public final class AutoPrefetch {
    /**
     * The stocks of all servers together hold at most the limit divided by this: one hundredth, so that near the limit
     * a server holding permits while another rejects is a hundredth of it at worst.
     */
    public static final long SHARE_DIVISOR = 100;
    /**
     * A stock pays at least this many requests, or none is taken: a smaller one would cost a call per few requests and
     * leave an entry in Redis for each. So a rule prefetches by itself only from a limit of 400 permits.
     */
    public static final long SMALLEST_STOCK = 4;
    /**
     * How long a server keeps an automatic stock, at most: short, so that permits a server holds return soon and its
     * demand is read fresh.
     */
    public static final Duration HOLD = Duration.ofMillis(100);
    /**
     * An automatic stock's hold is at most the period divided by this: a log counts a stock's permits from the hold's
     * end while it is out, so under overload a key admits about {@code period / (period + hold)} of its limit; a
     * hundredth keeps that above 99 % (a tenth, a fixed prefetch's bound, measured 91 % on {@code 10000/1s}).
     */
    static final int HOLD_SHARE = 100;
    /** A hold must be at least this long: the shortest a sweep tells apart. */
    private static final Duration SHORTEST_HOLD = Duration.ofMillis(1);

    private AutoPrefetch() {
    }

    /**
     * Whether the algorithm and throttling allow a prefetch at all: every algorithm but the leaky bucket (whose pace a
     * stock would bypass), hard throttling, a period with room for a hold.
     */
    static boolean allowed(Optional<Rate> rate, Algorithm algorithm, Throttling throttling) {
        return rate.isPresent() && algorithm != Algorithm.LEAKY_BUCKET
                && throttling == Throttling.HARD
                && hold(rate.get().period()).compareTo(SHORTEST_HOLD) >= 0;
    }

    /** The hold of an automatic stock under a rate of {@code period}: {@link #HOLD}, or a hundredth of it when shorter. */
    static Duration hold(Duration period) {
        Duration most = period.dividedBy(HOLD_SHARE);
        return most.compareTo(HOLD) < 0 ? most : HOLD;
    }

    /**
     * Whether a rule left to {@code auto} would ever take permits ahead: some limit of it (its own or a plan's) has a
     * share of at least {@link #SMALLEST_STOCK}, and neither a block (a stock would admit a blocked key) nor a settlement (a stock would
     * not see the debt) forbids it.
     */
    static boolean worthIt(Optional<Rate> rate, Plans plans, RatePolicy policy, Duration block, Settle settle) {
        if (!policy.prefetch().auto() || !block.isZero() || settle != Settle.NONE) return false;
        long most = rate.map(r -> share(policy, r.permits())).orElse(0L);
        for (PlanLimits plan : plans.byName().values()) {
            if (plan.rateUnlimited()) continue;
            long permits = plan.rate().map(Rate::permits).orElse(0L);
            most = Math.max(most, share(plan.ratePolicy(policy), permits));
        }
        return most >= SMALLEST_STOCK;
    }

    /**
     * The most permits all servers together may hold for one key of a limit of {@code permits} under {@code policy}:
     * a hundredth of what it admits at once (a token bucket's burst when smaller than the rate).
     */
    static long share(RatePolicy policy, long permits) {
        return share(permits, policy.burstFor(permits));
    }

    /**
     * The most permits all servers together may hold for one key of a rate of {@code permits} and a bucket of {@code
     * burst} (the permits again for any other algorithm): a hundredth of the smaller.
     */
    public static long share(long permits, long burst) {
        return Math.min(permits, burst) / SHARE_DIVISOR;
    }
}
