package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * A backend's capability to hand back permits a decision took: an elastic request whose capacity rule could not
 * pay for its overage, or a request that ended without using what it was admitted for. On a backend without it,
 * permits once taken stay taken until their window frees them.
 */
public interface Refunding {

    /**
     * Hands back {@code request.cost()} permits an earlier {@link LimiterBackend#tryConsume} took. Only
     * {@link Algorithm#refundable()} algorithms support it; the others complete exceptionally with
     * {@link UnsupportedOperationException}. Without the request's entry, a {@code sliding-log} gives back its newest
     * entry of exactly that cost (never a prefetched stock's), which is the request's own only while no later request
     * of the same cost has come: given back late, it may free a later request's permits, whose window then admits
     * that many more than the limit. Use {@link #refund(RateRequest, Entry)} when the outcome carried an entry.
     *
     * @param request the request whose permits to hand back
     * @return completes once handed back
     */
    CompletionStage<Void> refund(RateRequest request);

    /**
     * Hands back the permits one admitted decision took, found by the {@link RateOutcome#entry()} its answer carried:
     * the request's own, even when later requests of the key took permits of the same cost since. An entry that is no
     * longer kept (it left the window, the state was lost) gives back nothing: its permits are free already. A window
     * counter's entry names the window that counted the request: the cost comes off that window's counter while it
     * still counts (a {@code fixed-window}: while it is the current one; a {@code sliding-window}: the current or the
     * previous one), never below zero, and never off a later window's, which did not count the request. A null
     * entry is {@link #refund(RateRequest)}, which a backend keeping no entries per request (and the default) does
     * anyway. An entry may also name permits a server paid from a {@link Prefetching} stock of this backend
     * ({@link Entry.StockUse}), given back after the stock was handed back with its uses: a log takes them off the
     * use they were logged under. A {@code leaky-bucket}, which cannot refund otherwise, may give back a slot
     * by its entry (the slot's end) while that slot is still the last one scheduled, and keeps it otherwise: the
     * engine asks this only of a slot Redis gave a request after the engine stopped waiting for it.
     *
     * @param request the request whose permits to hand back
     * @param entry   the entry its admitted outcome carried, or null when none is known
     * @return completes once handed back
     */
    default CompletionStage<Void> refund(RateRequest request, Entry entry) {
        return refund(request);
    }

    /**
     * As {@link #refund(RateRequest, Entry)}, completing with how many permits the key's count got back: fewer than
     * the cost when the place {@code entry} names counts no more (a window counter's window that has ended, whose
     * give-back lowers no counter), so that a server holding a stock of the key knows what the key has left besides
     * it. The default says the whole cost.
     *
     * @param request the request whose permits to hand back
     * @param entry   the entry its admitted outcome carried, or null when none is known
     * @return completes once handed back, with the permits credited (0 to {@code request.cost()})
     */
    default CompletionStage<Long> refundCredited(RateRequest request, Entry entry) {
        return refund(request, entry).thenApply(v -> request.cost());
    }
}
