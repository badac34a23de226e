package io.sluice.redisson;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * {@code token-bucket.lua} (after {@code redis-time.lua}): a token bucket on Redis time; a prefetch is a stock of
 * tokens lent under its id until its hold (and a grace) ends, handed back by that id.
 */
final class TokenBucketScript extends DecisionScript {
    /** Arguments of one request, the last four a loan's ({@link LoanArguments}). */
    private static final int ARGUMENTS = 12;
    /** The loan's arguments: the prefetch, the stock's id, how long it is lent, the used-up stocks it forgets. */
    private static final LoanArguments LOAN = new LoanArguments(9, 12);

    private final boolean callerTime;

    TokenBucketScript(boolean callerTime) {
        super(ARGUMENTS, 1, 6, 0, true, "shared/redis-time.lua", "rate/token-bucket.lua");
        this.callerTime = callerTime;
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        return new String[] {time(callerTime, now), Long.toString(r.period().toMillis()), Long.toString(r.limit()),
                Long.toString(r.effectiveLimit()), Long.toString(r.burst()), Long.toString(r.effectiveBurst()),
                Long.toString(r.cost()), mode, NO_PREFETCH, LoanArguments.NO_STOCK, LoanArguments.NOT_LENT,
                LoanArguments.NONE_USED_UP};
    }

    @Override
    String[] prefetchArguments(DecisionLanes.Ahead ahead, String now) {
        return LOAN.lend(arguments(ahead.request(), CONSUME, now), ahead);
    }

    /**
     * A stock handed back: up to {@code r.cost()} of its tokens return to the bucket and it is no longer lent; a
     * tombstone for {@code tombstoneMillis} when Redis has not lent it (yet).
     */
    @Override
    String[] handBackArguments(RateRequest r, String stockId, String now, long tombstoneMillis) {
        return LOAN.handBack(arguments(r, REFUND, now), stockId, tombstoneMillis);
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        return sixNumbers(v, at);
    }
}
