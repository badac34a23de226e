package io.sluice.spi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A backend's capability to take permits ahead of need, for one server to hand out by itself within a hold, and
 * to take back the ones it did not use. Prefetched permits count against the limit as taken from the hold's end,
 * not its start (a log keeps them in its window until {@code hold} after the window of now), or end with the window
 * they were counted in (a window counter's, {@link Prefetch#endsInMillis}): however late one is used, no window ever
 * admits more than the limit. Once handed back with the times of their use
 * ({@link #returnPrefetched(Prefetch, long, List)}), a log counts the used ones from those, as without prefetch.
 * Sluice prefetches only for rules that ask for it ({@code prefetch}) on a backend with this capability; elsewhere it
 * decides every request in the backend.
 */
public interface Prefetching {

    /**
     * Decides {@code request} as {@link LimiterBackend#tryConsume} does and, in the same atomic step, takes up to
     * {@code ahead} more permits of cost 1 (as many as fit after it, whatever the request's own answer) for this
     * server to hand out by itself within {@code hold}. A request whose algorithm the backend cannot prefetch for
     * is decided alone ({@link Prefetch#none}).
     * <p>
     * In the same atomic step it forgets the stocks of the key that this server used up ({@code usedUp}, their
     * receipts): nothing of them comes back, and a backend that keeps a lent stock's entry until its hand-back or its
     * lapse (a token bucket's loan, a window counter's stock) drops it now, as a hand-back of nothing would, rather
     * than carry it in the key's state until then. A backend that keeps no such entries ignores them. A forgotten
     * stock that is not lent (any more) is left as it is: forgetting never leaves a tombstone.
     *
     * @param request the request to decide
     * @param ahead   permits to take ahead, at least 1
     * @param hold    how long this server may hand them out
     * @param usedUp  receipts of the key's stocks this server used up, to forget (empty: none)
     * @return the request's answer and what was taken ahead
     */
    CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold,
                                                    List<Prefetch.Receipt> usedUp);

    /**
     * Takes up to {@code ahead} permits of cost 1 for this server to hand out within {@code hold}, as
     * {@link #tryConsumeAndPrefetch(RateRequest, long, Duration, List)} does but with no request of its own: to refill
     * before a server's prefetched permits run out. The outcome is that of the last permit asked. For an algorithm
     * the backend cannot prefetch for, it takes nothing ({@link Prefetch#nothing}). It forgets the key's used-up
     * stocks {@code usedUp} in the same atomic step, as {@code tryConsumeAndPrefetch} does.
     *
     * @param permit a request for one permit (cost 1)
     * @param ahead  permits to take, at least 1
     * @param hold   how long this server may hand them out
     * @param usedUp receipts of the key's stocks this server used up, to forget (empty: none)
     * @return what was taken
     */
    CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold, List<Prefetch.Receipt> usedUp);

    /**
     * Hands back {@code unused} of the permits a {@link #tryConsumeAndPrefetch} or {@link #prefetch} took ahead (the
     * last ones it took), by the receipt the backend wrote into {@code prefetch}; they are free again at once. Called
     * once a stock is no longer used, even with nothing unused.
     * <p>
     * It also tells when the others were used ({@code used}): a log, which counted the whole stock from the hold's
     * end while it was out, then counts each used permit from its use, as it would have without prefetch (so it
     * leaves the window when it would have). A backend that keeps no times ignores them.
     * <p>
     * It completes with how much the key's remaining rose, so that a server holding another stock of the key knows
     * what the key has left besides it: {@code unused}, or fewer when the place the stock was counted in counts less
     * or no more (a window counter's stock handed back after its window ended: a {@code fixed-window}'s then lowers
     * no counter, a {@code sliding-window}'s lowers the previous window's, which weighs less).
     *
     * @param prefetch what was taken
     * @param unused   how many of them were not used, at most {@code prefetch.taken()}
     * @param used     when the others were used, at most {@code prefetch.taken() - unused} permits in all (empty:
     *                 not told)
     * @return completes once handed back, with the rise of the key's remaining (0 to {@code unused})
     */
    CompletionStage<Long> returnPrefetched(Prefetch prefetch, long unused, List<PrefetchUse> used);
}
