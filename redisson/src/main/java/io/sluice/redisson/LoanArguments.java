package io.sluice.redisson;

import io.sluice.spi.Prefetch;

/**
 * Where a script that lends stocks (a token bucket's, a window counter's) takes a loan: three arguments in a row from
 * position {@code first} (1-based), the permits to lend, the stock's id, and how long (ms) its hand-back may come, or a
 * hand-back's tombstone lasts; and at {@code usedUp} the ids of the key's stocks the server used up, which the loan
 * forgets first. Immutable.
 *
 * @param first  the 1-based position of the first of the three
 * @param usedUp the 1-based position of the used-up stocks' ids
 */
record LoanArguments(int first, int usedUp) {
    /** The loan arguments of a decision that lends nothing: no prefetch, no stock, not lent, nothing to forget. */
    static final String NO_STOCK = "";
    static final String NOT_LENT = "0";
    static final String NONE_USED_UP = "";
    /** What separates the used-up stocks' ids (never in an id: {@link StockCalls#stockId} is a mark and hexadecimal). */
    static final String ID_SEPARATOR = ",";
    /** A loan's hand-back may come until its hold and this grace have passed; then its permits count as used. */
    static final long GRACE_MILLIS = Prefetch.RETURN_GRACE.toMillis();

    /** {@code one}, a decision's arguments, lending what {@code ahead} asks under its id until its hold and the grace end. */
    String[] lend(String[] one, DecisionLanes.Ahead ahead) {
        one[first - 1] = Long.toString(ahead.count());
        one[usedUp - 1] = String.join(ID_SEPARATOR, ahead.usedUp());
        return handBack(one, ahead.id(), ahead.offsetMillis() + GRACE_MILLIS);
    }

    /** {@code one}, a refund's arguments, handing back stock {@code id} (a tombstone for {@code tombstoneMillis}). */
    String[] handBack(String[] one, String id, long tombstoneMillis) {
        one[first] = id;
        one[first + 1] = Long.toString(tombstoneMillis);
        return one;
    }
}
