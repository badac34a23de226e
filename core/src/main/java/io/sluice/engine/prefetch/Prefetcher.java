package io.sluice.engine.prefetch;

import io.sluice.engine.EngineScheduler;
import io.sluice.engine.Ticker;
import io.sluice.Decision;
import io.sluice.rule.Rule;
import io.sluice.spi.Entry;
import io.sluice.spi.Prefetching;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Permits this server took from a key ahead of need (a rule's {@code prefetch}), handed out here without a round
 * trip until their hold ends; what is left then goes back to the backend. The limit stays exact: every prefetched
 * permit is taken in the backend, which counts it from the hold's end while it is out (and a log, once the stock is
 * back, from its use, as without prefetch; a window counter ends the stock with the window it counted it in, and
 * then so does the hold), so a key never admits more than its limit in any window, on one server or many. What it
 * costs is that permits one server holds are not the others' until it uses them or hands them back (at most a hold
 * later). How many a call takes is {@link StockSizes}' to say: the rule's fixed size, or the key's demand.
 *
 * <p>Under {@code auto}, a key whose call brought fewer permits than it asked (it is at or near its limit) goes without
 * a new stock for a hold ({@link DryKeys}): its requests are decided in the backend as without prefetch, rather than
 * each waiting for a call of the key that brings little or nothing and then asking again.
 *
 * <p>A key's stock is refilled before it runs out: once a quarter of it is left (or three quarters of its hold have
 * passed and a quarter of it has been used), the request that notices asks the backend for the next stock without
 * waiting for it, so a busy key's requests keep being paid here. Only the first request of a key (or of one idle
 * for a hold) waits for the backend, with its own decision and the first stock in one call. One call per key at a
 * time: requests that find no stock while it is in flight wait for it (within the deadline) and are paid from what
 * it brings, or else decided in the backend as usual. A stock serves only requests of the limit it was taken for:
 * a request of another limit (another plan, a reload) first hands it back, since its permits are the key's, then asks
 * the backend. A request's remaining permits count the stocks this server holds for the key, as without prefetch.
 *
 * <p>Each key's state is a {@link KeySlot} (its {@link StockState}); ended holds are swept from a {@link HoldQueue};
 * hand-backs go through {@link HandBacks}. This class keeps the slots, at most {@link #MAX_KEYS} of them, and makes
 * the backend calls that bring stock. Thread-safe.
 */
public final class Prefetcher {
    /** Keys with a stock at most; past that, keys without one decide every request in the backend. */
    static final int MAX_KEYS = 100_000;
    /** How long closing waits for the unused permits to go back. */
    private static final long CLOSE_RETURN_MILLIS = 2_000;

    private final Prefetching backend;
    private final Ticker ticker;
    private final ConcurrentHashMap<String, KeySlot> slots = new ConcurrentHashMap<>();
    private final HoldQueue holds;
    private final HandBacks handBacks;
    /** Requests of prefetching keys decided in the backend without a call of the slot's, not yet landed. */
    private final KeyPending deciding = new KeyPending();
    private final StockSizes sizes;

    /**
     * @param handedBack is told the key of every hand-back: what this server knew of its remaining is out of date
     * @param servers    the servers sharing the backend, as last counted: {@code auto} stocks divide a limit's share
     */
    public Prefetcher(Prefetching backend, Ticker ticker, EngineScheduler scheduler, Consumer<String> handedBack,
                      IntSupplier servers) {
        this.backend = backend;
        this.ticker = ticker;
        this.sizes = new StockSizes(servers);
        this.holds = new HoldQueue(scheduler, () -> sweep());
        this.handBacks = new HandBacks(backend, handedBack);
    }

    /** Counts a request of a prefetching rule as its key's demand on this server ({@code prefetch=auto} sizes from it). */
    public void arrived(Rule rule, RateRequest request) {
        sizes.arrived(rule, request, ticker.millis());
    }

    /** Permits to take ahead for the request's key now: the rule's {@code prefetch}, or by demand; 0 for none. */
    public long ahead(Rule rule, RateRequest request) {
        return sizes.ahead(rule, request, ticker.millis());
    }

    /**
     * Pays for {@code request} from the key's stock, and starts the refill when the stock runs low.
     *
     * @return the decision, or null when the stock cannot pay (none, ended, another limit, too few left)
     */
    public Decision take(Rule rule, RateRequest request) {
        return take(rule, request, entry -> { });
    }

    /**
     * As {@link #take(Rule, RateRequest)}; paid, {@code entry} is told the entry of the request's permits (a log's use
     * of the stock, {@link Prefetch.Receipt#use}; a window counter's, the stock's window, {@link Prefetch#stockEntry};
     * null for a bucket), which their give-back names ({@link #putBack(RateRequest, Entry)}).
     */
    public Decision take(Rule rule, RateRequest request, Consumer<Entry> entry) {
        KeySlot slot = slots.get(request.key());
        if (slot == null) return null;
        KeySlot.Paid paid = slot.take(request, ticker.millis());
        if (paid == null) return null;
        entry.accept(paid.entry());
        if (paid.refill()) refill(request, slot, rule);
        return Decision.allowed(rule, Decision.Kind.RATE, request.limit(), paid.remaining(), Duration.ofMillis(paid.resetMillis()))
                .withCost(request.cost());
    }

    /** The next stock, asked without waiting for it: it becomes the key's next, used when the current one cannot pay. */
    private void refill(RateRequest request, KeySlot slot, Rule rule) {
        // After the key's hand-backs: overtaking one, the refill's answer would leave out permits already credited
        // to the key's remaining, and the key's remaining would read those permits as spent.
        CompletableFuture<Void> back = handBacks.inFlight(request.key());
        if (back == null) sendRefill(request, slot, rule);
        else back.whenComplete((v, e) -> sendRefill(request, slot, rule));
    }

    private void sendRefill(RateRequest request, KeySlot slot, Rule rule) {
        long sent = ticker.millis();
        Duration hold = rule.ratePolicy().prefetchHold();
        long size = sizes.refill(rule, request, slot.held(), sent);
        if (size == 0) {
            // Not worth a stock (auto, little left of the share): the key's next request that the stock cannot pay
            // asks for itself, as after a refill that found nothing.
            try {
                slot.refilled(null, null, sent);
            } finally {
                landed(request.key(), slot, null);
            }
            return;
        }
        CompletionStage<Prefetch> call;
        try {
            call = backend.prefetch(request.withCost(1), size, hold, slot.usedUp());
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((p, e) -> {
            Stock arrived = p != null && p.taken() > 0 ? new Stock(p, sent, p.usableUntil(sent, hold)) : null;
            if (p != null && cameShort(p, size, hold)) sizes.cameShort(rule, request, ticker.millis());
            boolean kept = false;
            try {
                kept = slot.refilled(p, arrived, sent);
            } finally {
                // Even past a broken state, the key's waiters go on (an exception here would reach no one).
                landed(request.key(), slot, kept ? arrived : null);
            }
        });
    }

    /**
     * Whether a call that asked {@code asked} permits for {@code hold} came short: it brought fewer, or a stock that ends
     * before a quarter of its hold (a window counter's ends with its window, a sliding window's also when the key's next
     * permit frees: every few microseconds on a busy key of a large limit). Such a stock lands all but spent and goes
     * back unused, its permits out of every server's reach for the round trips; under {@code auto} the key goes without
     * one for a hold ({@link StockSizes#cameShort}).
     */
    private static boolean cameShort(Prefetch p, long asked, Duration hold) {
        return p.taken() < asked || p.endsInMillis() < hold.toMillis() / Stock.REFILL_AT_QUARTER;
    }

    /** A call of the key has its answer in place: its stock (null: none kept) joins the sweep, and its waiters go on. */
    private void landed(String key, KeySlot slot, Stock kept) {
        if (kept != null) holds.add(key, slot, kept);
        slot.landed();
        if (kept == null && slot.forgetIfEmpty()) slots.remove(key, slot);
    }

    /**
     * The key's call in flight, which completes once it has been answered and its stock is in place (whatever the
     * answer); null when none is.
     */
    public CompletableFuture<Void> inFlight(String key) {
        KeySlot slot = slots.get(key);
        return slot == null ? null : slot.inFlight();
    }

    /** Completes once the key's call in flight (if any) has ended and its stock is in place (for tests). */
    public CompletableFuture<Void> settled(String key) {
        CompletableFuture<Void> c = inFlight(key);
        return c == null ? CompletableFuture.completedFuture(null) : c;
    }

    /**
     * Whether this request should prefetch, waiting for it: its key has no call in flight (then it has one now, which
     * {@link #fetch} ends when the backend answers) and there is room for its stock.
     */
    public boolean startFetch(String key) {
        KeySlot slot = slots.get(key);
        if (slot == null) {
            if (slots.size() >= MAX_KEYS) return false;
            slot = slots.computeIfAbsent(key, k -> new KeySlot(handBacks));
        }
        return slot.fetch();
    }

    /**
     * Asks the backend for the request and {@code ahead} permits for {@code hold}. The stock is kept when the backend
     * answers, even after the caller's deadline: the permits were taken either way.
     */
    public CompletionStage<Prefetch> fetch(Rule rule, RateRequest request, long ahead, Duration hold) {
        KeySlot slot = slots.get(request.key());
        long sent = ticker.millis();
        CompletionStage<Prefetch> call;
        try {
            call = backend.tryConsumeAndPrefetch(request, ahead, hold, slot.usedUp());
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.thenApply(p -> {
            Stock arrived = p.taken() > 0 ? new Stock(p, sent, p.usableUntil(sent, hold)) : null;
            if (cameShort(p, ahead, hold)) sizes.cameShort(rule, request, ticker.millis());
            KeySlot.Landing landing = slot.fetched(request, p, arrived, sent);
            landed(request.key(), slot, landing.kept() ? arrived : null);
            long besides = landing.besides();
            return besides == 0 ? p : new Prefetch(plus(p.outcome(), besides), p.request(), p.taken(), p.remaining(), p.receipt(),
                    p.endsInMillis(), p.stockEntry());
        }).whenComplete((p, e) -> {
            // No answer: no stock, and the key's waiters go on without one.
            if (e != null) landed(request.key(), slot, null);
        });
    }

    /** {@code o} with {@code more} permits remaining, its entry kept (where a give-back finds the request's permits). */
    private static RateOutcome plus(RateOutcome o, long more) {
        return new RateOutcome(o.allowed(), o.remaining() + more, o.resetMillis(), o.retryAfterMillis(), o.delayMillis(), o.overLimit(),
                o.entry());
    }

    /**
     * The key's remaining permits after a decision the backend made, which left it {@code backendRemaining}: those,
     * and the permits this server holds for the key's limit, as without prefetch.
     */
    public long remaining(RateRequest request, long backendRemaining, long resetMillis) {
        KeySlot slot = slots.get(request.key());
        return slot == null ? backendRemaining : slot.remaining(request, backendRemaining, ticker, resetMillis);
    }

    /**
     * {@code request} is being decided in the backend without a call of the key's slot (it found none to start, or
     * the stock the key's call brought cannot pay it): complete the future returned once its answer has landed
     * ({@link #remaining}). A refund of the key waits for it ({@link #callsInFlight}), since the answer could count the
     * refund, which {@link #refunded} adds to what the key has left once landed (counted twice). A call of the key
     * does not: one that lands while the decision is in flight crossed it, and the two answers tell what the key has
     * left as the lower of them ({@link CrossedAnswers}).
     */
    public CompletableFuture<Void> deciding(RateRequest request) {
        CompletableFuture<Void> landed = new CompletableFuture<>();
        deciding.track(request.key(), landed);
        KeySlot slot = slots.get(request.key());
        if (slot != null) {
            slot.deciding(request);
            landed.whenComplete((v, e) -> slot.decided(request));
        }
        return landed;
    }

    /**
     * The key's call in flight and its requests being decided in the backend ({@link #deciding}), which a refund of the
     * key waits for; null when none is.
     */
    public CompletableFuture<Void> callsInFlight(String key) {
        CompletableFuture<Void> call = inFlight(key);
        CompletableFuture<Void> decisions = deciding.inFlight(key);
        if (call == null) return decisions;
        return decisions == null ? call : CompletableFuture.allOf(call, decisions);
    }

    /**
     * A refund of the key's permits in flight: the key's next call waits for it as for a hand-back, since its answer
     * could count the refund, which {@link #refunded} adds to what the key has left once landed (counted twice).
     */
    public CompletableFuture<Void> refunding(String key, CompletableFuture<Void> refund) {
        return handBacks.track(key, refund);
    }

    /** The key's hand-backs sent and not yet answered; null when none are. */
    public CompletableFuture<Void> handBacksInFlight(String key) {
        return handBacks.inFlight(key);
    }

    /**
     * Puts back into the key's stock the permits of a request another rule rejected, without a round trip, when the
     * stock in use is of the request's limit and has room for them (it never holds more than it took, so its
     * hand-back never returns more than the backend lent it).
     *
     * @return whether the stock took them; if not, they go back to the backend ({@link #refunded})
     */
    public boolean putBack(RateRequest request) {
        return putBack(request, null);
    }

    /**
     * As {@link #putBack(RateRequest)}, for permits kept under {@code entry} (null: unknown): a log's permits go back
     * into the stock that paid for them, off their own use, while this server holds it; otherwise the backend gives
     * back that entry ({@link #handBacksInFlight} first, for a stock's use: its hand-back logs it).
     */
    public boolean putBack(RateRequest request, Entry entry) {
        KeySlot slot = slots.get(request.key());
        return slot != null && slot.putBack(request, ticker.millis(), entry);
    }

    /** Hands back the key's stocks on this server: the key was reset or settled into debt in the backend. */
    public void handBackAll(String key) {
        KeySlot slot = slots.get(key);
        if (slot != null) slot.handBackAll();
    }

    /** The backend took back a request's permits: the key has that many more besides this server's stocks. */
    public void refunded(RateRequest request) {
        KeySlot slot = slots.get(request.key());
        if (slot != null) slot.refunded(request);
    }

    /**
     * Hands back the key's stocks that cannot pay {@code request}: another limit's (a plan, a reload), ended, or with
     * too few left for its cost. Their permits are the key's, which the request is to be decided against in the
     * backend, as without prefetch.
     *
     * @return completes once they are back; null when there were none
     */
    public CompletableFuture<Void> handBackUnfit(RateRequest request) {
        KeySlot slot = slots.get(request.key());
        return slot == null ? null : slot.handBackUnfit(request, ticker.millis());
    }

    /**
     * Hands back every stock whose hold has ended, and forgets keys left with nothing (package-private: tests that
     * move time call it).
     *
     * @return completes when the backend has them back
     */
    public CompletableFuture<Void> sweep() {
        holds.endedBy(ticker.millis(), h -> {
            KeySlot.Swept swept = h.slot().holdEnded(h.stock());
            if (swept == KeySlot.Swept.FORGOTTEN) slots.remove(h.key(), h.slot());
            return swept != KeySlot.Swept.DEFERRED;
        });
        return handBacks.allAnswered();
    }

    /** When the first hold still queued for the sweep ends, on the ticker; {@link Long#MAX_VALUE} when none is (for tests). */
    public long nextHoldEnd() {
        return holds.nextEnd();
    }

    /** Prefetched permits not yet used on this server (for tests and monitoring). */
    public long held() {
        long held = 0;
        for (KeySlot slot : slots.values()) held += slot.held();
        return held;
    }

    /** Hands every stock back, waiting a little for the backend: a server that stops strands none of its permits. */
    public void close() {
        List<CompletableFuture<Void>> returns = new ArrayList<>();
        for (KeySlot slot : slots.values()) {
            for (Stock s : slot.close()) returns.add(handBacks.send(s).toCompletableFuture());
        }
        slots.clear();
        holds.clear();
        try {
            CompletableFuture.allOf(returns.toArray(new CompletableFuture<?>[0])).get(CLOSE_RETURN_MILLIS, TimeUnit.MILLISECONDS);
        } catch (Exception stopping) {
            // Not back in time: those permits count as used until their window passes.
        }
    }
}
