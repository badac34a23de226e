package io.sluice.engine.rate;

import io.sluice.spi.Entry;

/**
 * Where the backend keeps the permits one rate decision took, once it has admitted them: the entry of its answer
 * ({@code RateOutcome.entry}: a sliding log's entry, a window counter's window, a leaky bucket's slot), which a
 * give-back passes back so that the backend frees this request's permits and no later request's. For a log's permits
 * paid from this server's stock, their use of it ({@code Entry.StockUse}); for a window counter's paid from a stock,
 * the window that counted the stock ({@code Prefetch.stockEntry}); decided by this server's share ({@code local}), the
 * share's entry. Empty (null) when the backend keeps no entry per request, and for a failure policy's allow or deny.
 * Written once by the rate path before the decision completes, read after it: thread-safe.
 */
public final class TakenEntry {
    private volatile Entry entry;

    /** Where the backend keeps the permits, null when it is not known. */
    public Entry get() {
        return entry;
    }

    void set(Entry entry) {
        this.entry = entry;
    }
}
