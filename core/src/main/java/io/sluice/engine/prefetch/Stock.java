package io.sluice.engine.prefetch;

import io.sluice.spi.Algorithm;
import io.sluice.spi.Entry;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/** Prefetched permits of one key, taken at {@code fetchedAt} and good until {@code until}; {@code left} is what is unused. */
final class Stock {
    /** A stock is refilled once this share of it is left (or of its hold, once this share of it is used). */
    static final int REFILL_AT_QUARTER = 4;

    final Prefetch prefetch;
    final long fetchedAt;
    final long until;
    long left; // guarded by the lock of the slot that holds it
    /** When its permits were used, for a log (guarded as {@link #left}). */
    final StockUses uses = new StockUses();

    Stock(Prefetch prefetch, long fetchedAt, long until) {
        this.prefetch = prefetch;
        this.fetchedAt = fetchedAt;
        this.until = until;
        this.left = prefetch.taken();
    }

    /**
     * {@code r} is paid from it at {@code now}.
     *
     * @return the entry of its permits, which their give-back names: a log's use of it ({@link Prefetch.Receipt#use}),
     *         a window counter's window that counted the stock ({@link Prefetch#stockEntry}); null for a bucket's, and
     *         when the backend named none
     */
    Entry pay(RateRequest r, long now) {
        left -= r.cost();
        if (!countsUses()) return prefetch.stockEntry();
        uses.add(now, r.cost());
        Prefetch.Receipt receipt = prefetch.receipt();
        return receipt == null ? null : receipt.use(Math.max(0, until - now));
    }

    /**
     * Whether permits kept under {@code entry} (a window counter's window, {@link RateOutcome#entry()}) were counted
     * in the window this stock was: only then may they go back into it, whose hand-back lowers that window's counter.
     */
    boolean countedWith(Entry entry) {
        return entry != null && entry.equals(prefetch.stockEntry());
    }

    /**
     * What handing it back is expected to raise the key's remaining by, before the backend answers: its rest, but
     * nothing for a fixed window's stock counted in an earlier window than {@code newer} (null: none), which the
     * backend took in a later window: the key's window has turned, and no counter counts this stock's permits any
     * more. (A sliding window's stock then still weighs in the previous window, by a weight only the backend's
     * answer tells.)
     */
    long creditExpected(Stock newer) {
        if (newer == null || prefetch.request().algorithm() != Algorithm.FIXED_WINDOW) return left;
        return countedBefore(newer) ? 0 : left;
    }

    /** Whether this stock was counted in an earlier window than {@code newer} (both a window counter's). */
    private boolean countedBefore(Stock newer) {
        Entry.WindowIndex mine = prefetch.stockEntry();
        Entry.WindowIndex theirs = newer.prefetch.stockEntry();
        return mine != null && theirs != null && mine.index() < theirs.index();
    }

    /** A paid request's permits come back (another rule rejected it), taken off the latest use. */
    void putBack(RateRequest r) {
        left += r.cost();
        if (countsUses()) uses.remove(r.cost());
    }

    /**
     * When the permits {@code entry} names were used, as {@link #pay} answered it for this stock; -1 when the entry
     * names no use of this stock.
     */
    long usedAt(Entry entry) {
        Prefetch.Receipt receipt = prefetch.receipt();
        if (receipt == null || !(entry instanceof Entry.StockUse use) || !use.stockId().equals(receipt.stockId())) return -1;
        return until - use.beforeEndMillis();
    }

    /** A paid request's permits come back, taken off their own use at {@code usedAt} ({@link #usedAt}). */
    void putBack(RateRequest r, long usedAt) {
        left += r.cost();
        uses.remove(usedAt, r.cost());
    }

    /**
     * Whether its hand-back tells when its permits were used: a log counts them from then on (it counted the stock
     * from the hold's end while it was out); a bucket's tokens have no time.
     */
    boolean countsUses() {
        return prefetch.request().algorithm() == Algorithm.SLIDING_LOG;
    }

    boolean pays(RateRequest r, long now) {
        return now < until && left >= r.cost() && forLimitOf(r);
    }

    /** Whether it was taken for {@code r}'s limit (a plan or a reload may give the key's next request another). */
    boolean forLimitOf(RateRequest r) {
        return prefetch.request().equals(r.withCost(1));
    }

    /**
     * Whether to refill now: a quarter of it is left, or a quarter of its hold while a quarter of it has been
     * used (a key that uses a stock more slowly is not refilled: its next request asks for itself).
     */
    boolean low(long now) {
        long taken = prefetch.taken();
        if (left * REFILL_AT_QUARTER <= taken) return true;
        return (until - now) * REFILL_AT_QUARTER <= until - fetchedAt && (taken - left) * REFILL_AT_QUARTER >= taken;
    }
}
