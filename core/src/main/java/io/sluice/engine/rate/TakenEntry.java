package io.sluice.engine.rate;

/**
 * Where the backend keeps the permits one rate decision took, once it has admitted them: the entry token of its answer
 * ({@code RateOutcome.entry}: a sliding log's entry id, a window counter's window), which a give-back passes back so
 * that the backend frees this request's permits and no later request's. For a log's permits paid from this server's
 * stock, their use of it ({@code Prefetch.Receipt.useEntry}); for a window counter's paid from a stock, the window that
 * counted the stock ({@code Prefetch.stockEntry}); decided by this server's share ({@code local}), the share's entry.
 * Empty (null) when the backend keeps no entry per request, and for a failure policy's allow or deny. Written once by the rate path before the decision completes, read after
 * it: thread-safe.
 */
public final class TakenEntry {
    private volatile String token;

    /** The backend's token for the permits, null when none is known. */
    public String token() {
        return token;
    }

    void set(String token) {
        this.token = token;
    }
}
