package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * {@code fixed-window.lua} or {@code sliding-window.lua} (after {@code redis-time.lua} and {@code window-stocks.lua}):
 * a window's counter(s) on Redis time. The two scripts take the same arguments and answer alike; a prefetch is a stock
 * counted in the window of now and lent under its id, handed back by that id to the counter of its window. An admitted
 * answer's entry is the index of the window that counted it, which a refund names so that it comes off that window.
 */
final class WindowScript extends DecisionScript {
    /**
     * Arguments of one request: a loan's three ({@link LoanArguments}) from the 7th, a refund's window, then the
     * used-up stocks a loan forgets.
     */
    private static final int ARGUMENTS = 11;
    /** Where (1-based) a refund names the window its permits were counted in. */
    private static final int REFUND_WINDOW = 10;
    /** Numbers of one answer: the six of every script on Redis time, then the window's index. */
    private static final int ANSWER_SIZE = 7;
    /** Where in an answer (after its first number) the script names the window it counted in. */
    private static final int WINDOW = 6;
    /** A refund's window argument when its window is not known: the current one's counter pays. */
    private static final String UNKNOWN_WINDOW = "";
    /** The loan's three arguments: the prefetch, the stock's id, how long it is lent. */
    private static final LoanArguments LOAN = new LoanArguments(7, 11);
    /** Where in a prefetch's answer (after its first number) the script says how long its stock may be handed out. */
    private static final int STOCK_ENDS = 4;

    private final boolean callerTime;

    /** @param file the window's script */
    WindowScript(boolean callerTime, String file) {
        super(ARGUMENTS, 1, ANSWER_SIZE, 0, false, "shared/redis-time.lua", "shared/window-stocks.lua", file);
        this.callerTime = callerTime;
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        return new String[] {time(callerTime, now), Long.toString(r.period().toMillis()), Long.toString(r.limit()),
                Long.toString(r.effectiveLimit()), Long.toString(r.cost()), mode, NO_PREFETCH, LoanArguments.NO_STOCK, LoanArguments.NOT_LENT,
                UNKNOWN_WINDOW, LoanArguments.NONE_USED_UP};
    }

    /**
     * A refund of permits an admitted answer counted in the window {@code entry} names: off that window's
     * counter while it still counts, never off a later one's.
     */
    @Override
    String[] refundArguments(RateRequest r, Entry entry, String now) {
        String[] one = arguments(r, REFUND, now);
        Entry.WindowIndex window = Entry.as(Entry.WindowIndex.class, entry);
        if (window != null) one[REFUND_WINDOW - 1] = Long.toString(window.index());
        return one;
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

    /** A window's stock is counted in the window of its prefetch: the answer's 7th number, as a request's. */
    @Override
    Entry.WindowIndex stockEntry(List<Object> answers, int at) {
        return new Entry.WindowIndex(number(answers, at + WINDOW));
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        RateOutcome o = sixNumbers(v, at);
        return o.allowed() ? o.withEntry(new Entry.WindowIndex(number(v, at + WINDOW))) : o;
    }
}
