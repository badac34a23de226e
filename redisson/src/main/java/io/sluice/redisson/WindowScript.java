package io.sluice.redisson;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * {@code fixed-window.lua} or {@code sliding-window.lua} (after {@code redis-time.lua} and {@code window-stocks.lua}):
 * a window's counter(s) on Redis time. The two scripts take the same arguments and answer alike; a prefetch is a stock
 * counted in the window of now and lent under its id, handed back by that id to the counter of its window.
 */
final class WindowScript extends DecisionScript {
    /** Arguments of one request, the last three a loan's ({@link LoanArguments}). */
    private static final int ARGUMENTS = 9;
    /** The loan's three arguments: the prefetch, the stock's id, how long it is lent. */
    private static final LoanArguments LOAN = new LoanArguments(7);
    /** Where in a prefetch's answer (after its first number) the script says how long its stock may be handed out. */
    private static final int STOCK_ENDS = 4;

    private final boolean callerTime;

    /** @param file the window's script */
    WindowScript(boolean callerTime, String file) {
        super(ARGUMENTS, 1, 6, 0, false, "shared/redis-time.lua", "shared/window-stocks.lua", file);
        this.callerTime = callerTime;
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        return new String[] {time(callerTime, now), Long.toString(r.period().toMillis()), Long.toString(r.limit()),
                Long.toString(r.effectiveLimit()), Long.toString(r.cost()), mode, NO_PREFETCH, LoanArguments.NO_STOCK, LoanArguments.NOT_LENT};
    }

    @Override
    String[] prefetchArguments(DecisionLanes.Ahead ahead, String now) {
        return LOAN.lend(arguments(ahead.request(), CONSUME, now), ahead);
    }

    /**
     * A stock handed back: up to {@code r.cost()} of its permits off the counter of the window it was taken in (while
     * that window still counts), once; a tombstone for {@code tombstoneMillis} when Redis has not lent it (yet).
     */
    @Override
    String[] handBackArguments(RateRequest r, String stockId, String now, long tombstoneMillis) {
        return LOAN.handBack(arguments(r, REFUND, now), stockId, tombstoneMillis);
    }

    /** A window's stock ends with its window (a sliding window's also when the key's next permit frees). */
    @Override
    long stockEndsIn(List<Object> answers, int at) {
        return number(answers, at + STOCK_ENDS);
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        return sixNumbers(v, at);
    }
}
