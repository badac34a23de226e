package io.sluice.engine.prefetch;

import io.sluice.engine.Ticker;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Entry;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongConsumer;

/**
 * One key's prefetch on this server: its {@link StockState}, its call in flight and what the backend last said it had
 * left ({@link HeardLeft}), changed together under this slot's lock. A stock taken out of the slot is handed back under
 * that lock, so that a request that finds it gone finds its hand-back in {@link HandBacks#inFlight}. Thread-safe.
 */
final class KeySlot {
    /** How a swept stock whose hold has ended was met. */
    enum Swept { HANDED_BACK, DEFERRED, FORGOTTEN }

    /**
     * A request paid from the stock: the key's remaining permits and reset, whether the caller sends a refill, and the
     * entry of its permits (null: the stock keeps no uses).
     */
    record Paid(long remaining, long resetMillis, boolean refill, Entry entry) {
    }

    /** A call's answer put in place: whether its stock was kept, and the permits held besides (the request's remaining). */
    record Landing(boolean kept, long besides) {
    }

    /**
     * Receipts of used-up stocks kept for the key's next call to forget at most; older ones lapse in the backend by
     * themselves (a hold and a grace after they were taken).
     */
    static final int MAX_USED_UP = 8;
    /** What giving back a used-up stock waits for: nothing, no call goes. */
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final HandBacks handBacks;
    private StockState state = StockState.NoStock.NONE;
    /**
     * Stocks that left the slot used up, whose entries the backend keeps until the key's next call forgets them
     * ({@link #usedUp()}): a hand-back of nothing each would cost a round trip.
     */
    private final List<Prefetch.Receipt> usedUp = new ArrayList<>(2);
    private final HeardLeft heard = new HeardLeft();
    /** Which of the key's answers crossed another in flight, whose order in the backend is then unknown. */
    private final CrossedAnswers crossed = new CrossedAnswers();
    /** Completes when the call in flight has been answered and its stock put in place. */
    private CompletableFuture<Void> call = CompletableFuture.completedFuture(null);

    KeySlot(HandBacks handBacks) {
        this.handBacks = handBacks;
    }

    /**
     * Pays for {@code request} from the stock in use, or from the next one when that cannot (the one in use then goes
     * back), and starts the refill when the stock runs low ({@link StockState#refill}).
     *
     * @return null when no stock can pay (none, ended, another limit, too few left)
     */
    synchronized Paid take(RateRequest request, long now) {
        Stock s = state.current;
        Stock spent = null;
        if ((s == null || !s.pays(request, now)) && state.next != null && state.next.pays(request, now)) {
            spent = s;
            state = state.with(state.next, null);
            s = state.current;
        }
        if (s == null || !s.pays(request, now)) return null;
        Entry entry = s.pay(request, now);
        Stock n = state.next;
        // The key's remaining permits as without prefetch: what the backend has, and what this server holds.
        if (spent != null) handBack(spent, s);
        long remaining = heard.now(request, now, lent()) + s.left + (n != null ? n.left : 0);
        long reset = Math.max(0, s.prefetch.outcome().resetMillis() - (now - s.fetchedAt));
        boolean refill = false;
        if (n == null && s.low(now)) refill = startCall(state.refill());
        return new Paid(remaining, reset, refill, entry);
    }

    /** Tokens of this server's stocks, out of their bucket until handed back. */
    private long lent() {
        return (state.current != null ? state.current.prefetch.taken() : 0) + (state.next != null ? state.next.prefetch.taken() : 0);
    }

    /** Starts a request's own call ({@link StockState#fetch}); the caller sends it and ends it with {@link #landed}. */
    synchronized boolean fetch() {
        return startCall(state.fetch());
    }

    private boolean startCall(StockState calling) {
        if (calling == null) return false;
        state = calling;
        call = new CompletableFuture<>();
        crossed.callStarted();
        return true;
    }

    /**
     * A request's own call answered {@code p}, bringing {@code arrived} (null: none) sent at {@code sent}: the stocks
     * it replaces go back; when it brought none, the permits held for the request's limit are its remaining too.
     */
    synchronized Landing fetched(RateRequest request, Prefetch p, Stock arrived, long sent) {
        if (state.gone()) {
            if (arrived != null) giveBack(arrived);
            return new Landing(false, 0);
        }
        hear(request, p.remaining(), sent, p.outcome().resetMillis(), crossed.callLanded());
        long besides = 0;
        if (arrived == null) {
            // Only stocks of the request's limit are its remaining: another limit's (a refill that landed after they
            // were handed back) are not spent on it.
            if (state.current != null && state.current.forLimitOf(request)) besides += state.current.left;
            if (state.next != null && state.next.forLimitOf(request)) besides += state.next.left;
            return new Landing(false, besides);
        }
        // Permits this server held besides the request are the key's too: its remaining counts them.
        List<Stock> back = stocks();
        state = state.landed(arrived);
        for (Stock old : back) {
            besides += old.creditExpected(arrived);
            handBack(old, arrived);
        }
        return new Landing(true, besides);
    }

    /** A refill answered {@code p}, bringing {@code arrived} (null: none, or it failed) sent at {@code sent}. */
    synchronized boolean refilled(Prefetch p, Stock arrived, long sent) {
        if (arrived == null) {
            // Nothing left in the backend (or it failed): refilling again at once would only ask again.
            state = state.foundNothing();
            return false;
        }
        if (state.gone()) {
            giveBack(arrived);
            return false;
        }
        Stock back = state.next;
        state = state.landed(arrived);
        hear(p.request(), p.remaining(), sent, p.outcome().resetMillis(), crossed.callLanded());
        if (back != null) handBack(back, arrived);
        return true;
    }

    /** The call in flight is answered and its stock in place: those waiting for it go on. */
    void landed() {
        CompletableFuture<Void> c;
        synchronized (this) {
            state = state.callEnded();
            c = call;
        }
        c.complete(null);
    }

    /**
     * Hands back what is left of {@code s}, which left the slot, as {@link #giveBack}, and credits what the key has left
     * besides this server's stocks: at once with what the hand-back is expected to credit ({@link Stock#creditExpected}:
     * its rest, or nothing for a fixed window's stock counted before {@code newer}'s window), then by what the backend
     * says it credited once answered (a window that has ended counts less or nothing), while no later answer has
     * replaced what was heard.
     */
    private CompletionStage<Void> handBack(Stock s, Stock newer) {
        long expected = s.creditExpected(newer);
        heard.add(expected);
        long answer = heard.answer();
        return giveBack(s, credited -> {
            synchronized (this) {
                heard.correct(answer, credited - expected);
            }
        });
    }

    private CompletionStage<Void> giveBack(Stock s) {
        return giveBack(s, credited -> { });
    }

    /**
     * Hands back what is left of {@code s}, which left the slot; a stock used up whose backend keeps its entry (a
     * token bucket's loan, a window counter's stock; not a log's, which goes back with the times of its uses) has
     * nothing to hand back: its receipt waits for the key's next call, which forgets it in the same step.
     */
    private CompletionStage<Void> giveBack(Stock s, LongConsumer credited) {
        if (s.left > 0 || s.countsUses()) return handBacks.send(s, credited);
        if (usedUp.size() == MAX_USED_UP) usedUp.remove(0);
        usedUp.add(s.prefetch.receipt());
        return DONE;
    }

    /** The receipts of the key's used-up stocks not forgotten yet, for the call about to be sent; none are kept after. */
    synchronized List<Prefetch.Receipt> usedUp() {
        if (usedUp.isEmpty()) return List.of();
        List<Prefetch.Receipt> forget = List.copyOf(usedUp);
        usedUp.clear();
        return forget;
    }

    /** The key's call in flight, completing once its stock is in place; null when none is. */
    synchronized CompletableFuture<Void> inFlight() {
        return state.calling() ? call : null;
    }

    /**
     * The hold of {@code stock} has ended: it goes back, unless the key's call in flight holds it (which may reach
     * the backend before or after a hand-back sent now, so what it says the key has left would be off by the stock:
     * its answer hands the stock back itself, or the next sweep does). A slot left with nothing is forgotten.
     */
    synchronized Swept holdEnded(Stock stock) {
        if (state.calling() && (state.current == stock || state.next == stock)) return Swept.DEFERRED;
        boolean ended = true;
        if (state.current == stock) {
            state = state.with(state.next, null);
        } else if (state.next == stock) {
            state = state.with(state.current, null);
        } else {
            // Already replaced: handed back when it was.
            ended = false;
        }
        if (ended) handBack(stock, state.current);
        StockState forgotten = state.forget();
        if (forgotten == null) return Swept.HANDED_BACK;
        state = forgotten;
        return Swept.FORGOTTEN;
    }

    /** Forgets a key left with nothing and no call in flight (after a call that brought no stock). */
    synchronized boolean forgetIfEmpty() {
        StockState forgotten = state.gone() ? null : state.forget();
        if (forgotten == null) return false;
        state = forgotten;
        return true;
    }

    /**
     * The key's remaining permits after a decision the backend made, which left it {@code backendRemaining}: those,
     * and the permits this server holds for the request's limit, as without prefetch.
     */
    synchronized long remaining(RateRequest request, long backendRemaining, Ticker ticker, long resetMillis) {
        Stock current = state.current;
        Stock next = state.next;
        // What the backend has left depends on the limit asked: a request of another limit than the stocks' (a
        // plan the key's stocks are not for) does not tell what those stocks' requests have left besides them.
        boolean ofTheStocks = (current == null || current.forLimitOf(request)) && (next == null || next.forLimitOf(request));
        long left = backendRemaining;
        if (!ofTheStocks) {
            crossed.decisionEnded(request);
        } else if (crossed.decisionLanded(request)) {
            // A call landed while it was in flight, whichever Redis ran first: its stock may be among those held here,
            // which this answer may count as the key's still.
            left = heard.heardBeside(request, backendRemaining, ticker.millis(), resetMillis);
        } else {
            heard.heard(backendRemaining, ticker.millis(), resetMillis);
        }
        long held = 0;
        if (current != null && current.forLimitOf(request)) held += current.left;
        if (next != null && next.forLimitOf(request)) held += next.left;
        return left + held;
    }

    /** What the backend said the key has left, in order with what was heard before, or beside an answer it crossed. */
    private void hear(RateRequest request, long left, long at, long resetMillis, boolean beside) {
        if (beside) heard.heardBeside(request, left, at, resetMillis);
        else heard.heard(left, at, resetMillis);
    }

    /** A request of the key is being decided in the backend without a call of this slot ({@link Prefetcher#deciding}). */
    synchronized void deciding(RateRequest request) {
        crossed.decisionSent(request);
    }

    /** That decision has ended: its answer heard ({@link #remaining}) or none to hear (it failed). */
    synchronized void decided(RateRequest request) {
        crossed.decisionEnded(request);
    }

    /**
     * Puts a rejected request's permits back into the stock in use, when it is of the request's limit and has room
     * (it never holds more than it took, so its hand-back never returns more than the backend lent it).
     */
    synchronized boolean putBack(RateRequest request, long now) {
        return putBack(request, now, null);
    }

    /**
     * As {@link #putBack(RateRequest, long)}, for the permits kept under {@code entry} (null: unknown). A log's permits
     * a stock still held here paid for go back into it, taken off their own use, even once its hold has ended (its
     * hand-back, not yet sent, then returns them unused). Those of a stock handed back already, and a log's permits the
     * backend keeps under an entry of their own, are not taken: the backend gives back that entry, so that a later
     * request's use or entry keeps its time. A window counter's permits (paid from a stock or not) go into the stock in
     * use only when it was counted in the window {@code entry} names: a later window's stock never counted them, and
     * its hand-back would credit its own window with them. Not taken, they come off their window in the backend, and
     * the stock that paid them (if any) still hands back only what it has left: never counted twice.
     */
    synchronized boolean putBack(RateRequest request, long now, Entry entry) {
        if (entry != null && request.algorithm() == Algorithm.SLIDING_LOG) {
            if (state.gone()) return false;
            for (Stock held : stocks()) {
                long usedAt = held.usedAt(entry);
                if (usedAt >= 0) {
                    held.putBack(request, usedAt);
                    return true;
                }
            }
            return false;
        }
        Stock s = state.current;
        if (state.gone() || s == null || now >= s.until || !s.forLimitOf(request) || s.left + request.cost() > s.prefetch.taken()) {
            return false;
        }
        // A window's permits go into a stock of the window that counted them, else off that window in the backend.
        if (entry != null && countsByWindow(request) && !s.countedWith(entry)) return false;
        s.putBack(request);
        return true;
    }

    private static boolean countsByWindow(RateRequest request) {
        return request.algorithm() == Algorithm.FIXED_WINDOW || request.algorithm() == Algorithm.SLIDING_WINDOW;
    }

    /** The backend took back a request's permits: the key has that many more besides this server's stocks. */
    synchronized void refunded(RateRequest request) {
        heard.add(request.cost());
    }

    /**
     * Hands back the stocks that cannot pay {@code request} at {@code now}: taken for another limit (a plan, a reload),
     * ended, or with too few permits left for its cost. Deciding it in the backend with them still out would count
     * them as spent: another limit's are the key's permits, and permits of its own limit left unused would reject a
     * request that the same permits left in the backend would admit. The one that can pay (if any) stays in use.
     *
     * @return completes once they are back; null when there were none
     */
    synchronized CompletableFuture<Void> handBackUnfit(RateRequest request, long now) {
        Stock current = state.current;
        Stock next = state.next;
        List<Stock> back = new ArrayList<>(2);
        if (current != null && !current.pays(request, now)) {
            back.add(current);
            current = null;
        }
        if (next != null && !next.pays(request, now)) {
            back.add(next);
            next = null;
        }
        if (current == null && next != null) {
            current = next;
            next = null;
        }
        state = state.with(current, next);
        if (back.isEmpty()) return null;
        List<CompletableFuture<Void>> returns = new ArrayList<>(back.size());
        for (Stock s : back) {
            // Its own limit's permits are the key's again: what it has left besides this server's stocks.
            CompletionStage<Void> handedBack = s.forLimitOf(request) ? handBack(s, current) : giveBack(s);
            returns.add(handedBack.toCompletableFuture());
        }
        return CompletableFuture.allOf(returns.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * Hands back every stock of the key (after a reset, or a settlement that put it in debt): what this server holds
     * must not pay for requests the key's state in the backend would now reject.
     */
    synchronized void handBackAll() {
        List<Stock> back = stocks();
        state = state.with(null, null);
        for (Stock s : back) giveBack(s);
    }

    /** Prefetched permits of the key not yet used. */
    synchronized long held() {
        return (state.current != null ? state.current.left : 0) + (state.next != null ? state.next.left : 0);
    }

    /** The engine stops: the slot is gone, and its stocks are the caller's to hand back. */
    synchronized List<Stock> close() {
        List<Stock> back = stocks();
        state = state.close();
        return back;
    }

    /** The stocks held, the one in use first. */
    private List<Stock> stocks() {
        List<Stock> held = new ArrayList<>(2);
        if (state.current != null) held.add(state.current);
        if (state.next != null) held.add(state.next);
        return held;
    }

    /** The state the key is in (for tests). */
    synchronized StockState state() {
        return state;
    }
}
