package io.sluice.redisson;

import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * {@code token-bucket.lua} (after {@code redis-time.lua}): a token bucket on Redis time; a prefetch is a stock of
 * tokens lent under its id until its hold (and a grace) ends, handed back by that id.
 */
final class TokenBucketScript extends DecisionScript {
    /** Arguments of one request; which ones are a prefetch's size, its id, and how long its stock is lent. */
    private static final int ARGUMENTS = 11;
    private static final int PREFETCH = 9;
    private static final int STOCK_ID = 10;
    private static final int LENT_FOR = 11;
    /** No prefetch id, nothing lent: a plain decision. */
    private static final String NO_STOCK = "";
    private static final String NOT_LENT = "0";
    /**
     * How long after its hold a stock still counts as lent, for its hand-back to arrive: past it, the stock counts as
     * used (a server that stopped hands nothing back).
     */
    static final long LENT_GRACE_MILLIS = Prefetch.RETURN_GRACE.toMillis();

    private final boolean callerTime;

    TokenBucketScript(boolean callerTime) {
        super(ARGUMENTS, 1, 6, 0, true, "shared/redis-time.lua", "rate/token-bucket.lua");
        this.callerTime = callerTime;
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        return new String[] {time(callerTime, now), Long.toString(r.period().toMillis()), Long.toString(r.limit()),
                Long.toString(r.effectiveLimit()), Long.toString(r.burst()), Long.toString(r.effectiveBurst()),
                Long.toString(r.cost()), mode, NO_PREFETCH, NO_STOCK, NOT_LENT};
    }

    @Override
    String[] prefetchArguments(DecisionLanes.Ahead ahead, String now) {
        String[] one = arguments(ahead.request(), CONSUME, now);
        one[PREFETCH - 1] = Long.toString(ahead.count());
        one[STOCK_ID - 1] = ahead.id();
        one[LENT_FOR - 1] = Long.toString(ahead.offsetMillis() + LENT_GRACE_MILLIS);
        return one;
    }

    /**
     * A stock handed back: up to {@code r.cost()} of its tokens return to the bucket and it is no longer lent; a
     * tombstone for {@code tombstoneMillis} when Redis has not lent it (yet).
     */
    @Override
    String[] handBackArguments(RateRequest r, String stockId, String now, long tombstoneMillis) {
        String[] one = arguments(r, REFUND, now);
        one[STOCK_ID - 1] = stockId;
        one[LENT_FOR - 1] = Long.toString(tombstoneMillis);
        return one;
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        return sixNumbers(v, at);
    }
}
