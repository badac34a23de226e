package io.sluice;

import io.sluice.internal.Ticker;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Prefetching;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Permits this server took from a key ahead of need (a rule's {@code prefetch}), handed out here without a round
 * trip until their hold ends; what is left then goes back to the backend. The limit stays exact: every prefetched
 * permit is taken in the backend, which counts it from the hold's end, so a key never admits more than its limit in
 * any window, on one server or many. What it costs is that permits one server holds are not the others' until it
 * uses them or hands them back (at most a hold later).
 *
 * <p>A key's stock is refilled before it runs out: once a quarter of it is left (or three quarters of its hold have
 * passed and a quarter of it has been used), the request that notices asks the backend for the next stock without
 * waiting for it, so a busy key's requests keep being paid here. Only the first request of a key (or of one idle
 * for a hold) waits for the backend, with its own decision and the first stock in one call. One call per key at a
 * time: requests that find no stock while it is in flight wait for it (within the deadline) and are paid from what
 * it brings, or else decided in the backend as usual. A stock serves only requests of the limit it was taken for:
 * a request of another limit (another plan, a reload) first hands it back, since its permits are the key's, then asks
 * the backend. A request's remaining permits count the stocks this server holds for the key, as without prefetch.
 * At most {@link #MAX_KEYS} keys hold stock. Thread-safe.
 */
final class Prefetcher {
    /** Keys with a stock at most; past that, keys without one decide every request in the backend. */
    static final int MAX_KEYS = 100_000;
    /**
     * How often ended holds are handed back when no request of their key comes to do it: often, so that hand-backs
     * go a few at a time instead of in bursts that Redis would make decisions wait behind.
     */
    static final long SWEEP_MILLIS = 10;
    /** A stock is refilled once this share of it is left (or of its hold, once this share of it is used). */
    static final int REFILL_AT_QUARTER = 4;
    /** How long closing waits for the unused permits to go back. */
    private static final long CLOSE_RETURN_MILLIS = 2_000;

    private final Prefetching backend;
    private final Ticker ticker;
    private final EngineScheduler scheduler;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    /** Every stock taken, by the end of its hold: the sweep visits only those that have ended. */
    private final PriorityBlockingQueue<Held> holds = new PriorityBlockingQueue<>();
    private final AtomicLong order = new AtomicLong();
    /**
     * Hand-backs sent and not yet answered, by key: the key's next backend call waits for them, since on another
     * connection it could overtake them and find their permits still taken.
     */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> returningTo = new ConcurrentHashMap<>();
    /** Hand-backs sent and not yet answered (a test's sweep waits for them). */
    private final Set<CompletableFuture<Void>> returning = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean sweeping = new AtomicBoolean();

    /** Told the key of every hand-back: what this server knew of the key's remaining permits is out of date. */
    private final Consumer<String> handedBack;

    Prefetcher(Prefetching backend, Ticker ticker, EngineScheduler scheduler, Consumer<String> handedBack) {
        this.backend = backend;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.handedBack = handedBack;
    }

    /** Prefetched permits, taken at {@code fetchedAt} and good until {@code until}. */
    private static final class Stock {
        final Prefetch prefetch;
        final long fetchedAt;
        final long until;
        long left; // guarded by the slot

        Stock(Prefetch prefetch, long fetchedAt, long until) {
            this.prefetch = prefetch;
            this.fetchedAt = fetchedAt;
            this.until = until;
            this.left = prefetch.taken();
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

    /** A stock in the order its hold ends ({@code seq} keeps equal ends apart), and where it is kept. */
    private record Held(long until, long seq, String key, Slot slot, Stock stock) implements Comparable<Held> {
        @Override
        public int compareTo(Held o) {
            int c = Long.compare(until, o.until);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** Puts {@code stock} in the sweep's order (once it is in its slot). */
    private void track(String key, Slot slot, Stock stock) {
        holds.add(new Held(stock.until, order.incrementAndGet(), key, slot, stock));
        sweepSoon();
    }

    /** One key on this server: the stock in use, the next one (a refill that arrived early), a call in flight. */
    private static final class Slot {
        Stock current;
        Stock next;
        boolean asking;
        /** A refill found nothing left: no more until a request's own call brings a stock again. */
        boolean dry;
        /**
         * What the backend last said the key had left besides this server's stocks (after this server's last call
         * of the key, and the stocks it has handed back since): with the stocks' rest, the key's remaining permits.
         */
        long backendLeft;
        /** When the backend said {@link #backendLeft} (this server's ticker), and how long until its next permit freed. */
        long backendAt;
        long backendResetMillis;

        /** What the backend said the key had left besides this server's stocks, at {@code at}. */
        void heard(long left, long at, long resetMillis) {
            backendLeft = left;
            backendAt = at;
            backendResetMillis = resetMillis;
        }
        /** Completes when the call in flight has been answered and its stock put in place. */
        CompletableFuture<Void> call = CompletableFuture.completedFuture(null);

        /** Starts a call: the caller sends it and ends it with {@link #landed}. Guarded by this. */
        void asking() {
            asking = true;
            call = new CompletableFuture<>();
        }

        /** The call is answered and its stock in place. */
        void landed() {
            CompletableFuture<Void> c;
            synchronized (this) {
                asking = false;
                c = call;
            }
            c.complete(null);
        }
        /** Dropped from the map by the sweep: what arrives for it goes straight back. */
        boolean dead;
    }

    /**
     * Pays for {@code request} from the key's stock, and starts the refill when the stock runs low.
     *
     * @return the decision, or null when the stock cannot pay (none, ended, another limit, too few left)
     */
    Decision take(Rule rule, RateRequest request) {
        Slot slot = slots.get(request.key());
        if (slot == null) return null;
        long now = ticker.millis();
        Stock spent = null;
        boolean refill = false;
        long remaining;
        long reset;
        synchronized (slot) {
            Stock s = slot.current;
            if ((s == null || !s.pays(request, now)) && slot.next != null && slot.next.pays(request, now)) {
                spent = s;
                slot.current = s = slot.next;
                slot.next = null;
            }
            if (s == null || !s.pays(request, now)) return null;
            s.left -= request.cost();
            Stock n = slot.next;
            // The key's remaining permits as without prefetch: what the backend has, and what this server holds.
            if (spent != null) {
                slot.backendLeft += spent.left;
                giveBack(spent);
            }
            remaining = backendNow(slot, request, now) + s.left + (n != null ? n.left : 0);
            reset = Math.max(0, s.prefetch.outcome().resetMillis() - (now - s.fetchedAt));
            if (n == null && !slot.asking && !slot.dry && !slot.dead && s.low(now)) {
                slot.asking();
                refill = true;
            }
        }
        if (refill) refill(request, slot, rule);
        return Decision.allowed(rule, Decision.Kind.RATE, request.limit(), remaining, Duration.ofMillis(reset))
                .withCost(request.cost());
    }

    /** The next stock, asked without waiting for it: it becomes the key's next, used when the current one cannot pay. */
    private void refill(RateRequest request, Slot slot, Rule rule) {
        long sent = ticker.millis();
        Duration hold = rule.ratePolicy().prefetchHold();
        CompletionStage<Prefetch> call;
        try {
            call = backend.prefetch(request.withCost(1), rule.ratePolicy().prefetch(), hold);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((p, e) -> {
            Stock arrived = p != null && p.taken() > 0 ? new Stock(p, sent, sent + hold.toMillis()) : null;
            Stock back = arrived;
            synchronized (slot) {
                // Nothing left in the backend (or it failed): refilling again at once would only ask again.
                slot.dry = arrived == null;
                if (arrived != null && !slot.dead) {
                    back = slot.next;
                    slot.next = arrived;
                    slot.heard(p.remaining() + (back != null ? back.left : 0), sent, p.outcome().resetMillis());
                }
                if (back != null) giveBack(back);
            }
            if (arrived != null && back != arrived) track(request.key(), slot, arrived);
            slot.landed();
            if (arrived == null || back == arrived) forgetIfEmpty(request.key(), slot);
        });
    }

    /**
     * The key's call in flight, which completes once it has been answered and its stock is in place (whatever the
     * answer); null when none is.
     */
    CompletableFuture<Void> inFlight(String key) {
        Slot slot = slots.get(key);
        if (slot == null) return null;
        synchronized (slot) {
            return slot.asking ? slot.call : null;
        }
    }

    /** Completes once the key's call in flight (if any) has ended and its stock is in place (for tests). */
    CompletableFuture<Void> settled(String key) {
        CompletableFuture<Void> c = inFlight(key);
        return c == null ? CompletableFuture.completedFuture(null) : c;
    }

    /**
     * Whether this request should prefetch, waiting for it: its key has no call in flight (then it has one now, which
     * {@link #fetch} ends when the backend answers) and there is room for its stock.
     */
    boolean startFetch(String key) {
        Slot slot = slots.get(key);
        if (slot == null) {
            if (slots.size() >= MAX_KEYS) return false;
            slot = slots.computeIfAbsent(key, k -> new Slot());
        }
        synchronized (slot) {
            if (slot.asking || slot.dead) return false;
            slot.asking();
            return true;
        }
    }

    /**
     * Asks the backend for the request and {@code ahead} permits for {@code hold}. The stock is kept when the backend
     * answers, even after the caller's deadline: the permits were taken either way.
     */
    CompletionStage<Prefetch> fetch(RateRequest request, long ahead, Duration hold) {
        Slot slot = slots.get(request.key());
        long sent = ticker.millis();
        CompletionStage<Prefetch> call;
        try {
            call = backend.tryConsumeAndPrefetch(request, ahead, hold);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.thenApply(p -> {
            Stock arrived = p.taken() > 0 ? new Stock(p, sent, sent + hold.toMillis()) : null;
            List<Stock> back = new ArrayList<>(2);
            // Permits this server held besides the request are the key's too: its remaining counts them.
            long besides = 0;
            synchronized (slot) {
                if (arrived != null) slot.dry = false;
                if (slot.dead) {
                    if (arrived != null) back.add(arrived);
                } else if (arrived != null) {
                    if (slot.current != null) back.add(slot.current);
                    if (slot.next != null) back.add(slot.next);
                    slot.current = arrived;
                    slot.next = null;
                    slot.heard(p.remaining(), sent, p.outcome().resetMillis());
                    for (Stock old : back) slot.backendLeft += old.left;
                    for (Stock old : back) besides += old.left;
                } else {
                    slot.heard(p.remaining(), sent, p.outcome().resetMillis());
                    // Only stocks of the request's limit are its remaining: another limit's (a refill that landed
                    // after they were handed back) are not spent on it.
                    if (slot.current != null && slot.current.forLimitOf(request)) besides += slot.current.left;
                    if (slot.next != null && slot.next.forLimitOf(request)) besides += slot.next.left;
                }
                for (Stock s : back) giveBack(s);
            }
            if (arrived != null && !back.contains(arrived)) track(request.key(), slot, arrived);
            slot.landed();
            if (arrived == null || back.contains(arrived)) forgetIfEmpty(request.key(), slot);
            return besides == 0 ? p : new Prefetch(plus(p.outcome(), besides), p.request(), p.taken(), p.remaining(), p.receipt());
        }).whenComplete((p, e) -> {
            // No answer: no stock, and the key's waiters go on without one.
            if (e != null) {
                slot.landed();
                forgetIfEmpty(request.key(), slot);
            }
        });
    }

    /**
     * What the key has left besides this server's stocks now: what the backend last said, and for a token bucket the
     * tokens it has gained since (its first at the reset the backend gave, then one an interval), up to its capacity
     * less the tokens this server has lent (which are out of the bucket and of its room until handed back). Exact
     * with one server; with several, other servers' stocks may keep the bucket lower than this says.
     */
    private static long backendNow(Slot slot, RateRequest r, long now) {
        long elapsed = now - slot.backendAt;
        if (r.algorithm() != Algorithm.TOKEN_BUCKET || elapsed < slot.backendResetMillis) return slot.backendLeft;
        double intervalMillis = (double) r.period().toMillis() / r.limit();
        long gained = 1 + (long) Math.floor((elapsed - slot.backendResetMillis) / intervalMillis);
        long lent = (slot.current != null ? slot.current.prefetch.taken() : 0) + (slot.next != null ? slot.next.prefetch.taken() : 0);
        return Math.max(slot.backendLeft, Math.min(slot.backendLeft + gained, r.burst() - lent));
    }

    /** {@code o} with {@code more} permits remaining. */
    private static RateOutcome plus(RateOutcome o, long more) {
        return new RateOutcome(o.allowed(), o.remaining() + more, o.resetMillis(), o.retryAfterMillis(), o.delayMillis(), o.overLimit());
    }

    /**
     * The key's remaining permits after a decision the backend made, which left it {@code backendRemaining}: those,
     * and the permits this server holds for the key's limit, as without prefetch.
     */
    long remaining(RateRequest request, long backendRemaining, long resetMillis) {
        Slot slot = slots.get(request.key());
        if (slot == null) return backendRemaining;
        synchronized (slot) {
            // What the backend has left depends on the limit asked: a request of another limit than the stocks' (a
            // plan the key's stocks are not for) does not tell what those stocks' requests have left besides them.
            boolean ofTheStocks = (slot.current == null || slot.current.forLimitOf(request))
                    && (slot.next == null || slot.next.forLimitOf(request));
            if (ofTheStocks) slot.heard(backendRemaining, ticker.millis(), resetMillis);
            long held = 0;
            if (slot.current != null && slot.current.forLimitOf(request)) held += slot.current.left;
            if (slot.next != null && slot.next.forLimitOf(request)) held += slot.next.left;
            return backendRemaining + held;
        }
    }

    /** The key's hand-backs sent and not yet answered; null when none are. */
    CompletableFuture<Void> handBacksInFlight(String key) {
        CompletableFuture<Void> pending = returningTo.get(key);
        return pending == null || pending.isDone() ? null : pending;
    }

    /**
     * Puts back into the key's stock the permits of a request another rule rejected, without a round trip, when the
     * stock in use is of the request's limit and has room for them (it never holds more than it took, so its
     * hand-back never returns more than the backend lent it).
     *
     * @return whether the stock took them; if not, they go back to the backend ({@link #refunded})
     */
    boolean putBack(RateRequest request) {
        Slot slot = slots.get(request.key());
        if (slot == null) return false;
        long now = ticker.millis();
        synchronized (slot) {
            Stock s = slot.current;
            if (slot.dead || s == null || now >= s.until || !s.forLimitOf(request)
                    || s.left + request.cost() > s.prefetch.taken()) {
                return false;
            }
            s.left += request.cost();
            return true;
        }
    }

    /** The backend took back a request's permits: the key has that many more besides this server's stocks. */
    void refunded(RateRequest request) {
        Slot slot = slots.get(request.key());
        if (slot == null) return;
        synchronized (slot) {
            slot.backendLeft += request.cost();
        }
    }

    /**
     * Hands back the key's stocks taken for another limit than {@code request}'s (another plan, a reload): their
     * permits are the key's, which the request is to be decided against, not a stock it may spend.
     *
     * @return completes once they are back; null when there were none
     */
    CompletableFuture<Void> handBackOtherLimits(RateRequest request) {
        Slot slot = slots.get(request.key());
        if (slot == null) return null;
        List<Stock> back = new ArrayList<>(2);
        synchronized (slot) {
            if (slot.current != null && !slot.current.forLimitOf(request)) {
                back.add(slot.current);
                slot.current = null;
            }
            if (slot.next != null && !slot.next.forLimitOf(request)) {
                back.add(slot.next);
                slot.next = null;
            }
            if (slot.current == null && slot.next != null) {
                slot.current = slot.next;
                slot.next = null;
            }
            if (back.isEmpty()) return null;
            List<CompletableFuture<Void>> returns = new ArrayList<>(back.size());
            for (Stock s : back) returns.add(giveBack(s).toCompletableFuture());
            return CompletableFuture.allOf(returns.toArray(new CompletableFuture<?>[0]));
        }
    }

    private void sweepSoon() {
        if (sweeping.compareAndSet(false, true)) {
            try {
                scheduler.withFixedDelay(() -> sweep(), SWEEP_MILLIS, SWEEP_MILLIS);
            } catch (RuntimeException closing) {
                sweeping.set(false);
            }
        }
    }

    /**
     * Hands back every stock whose hold has ended, and forgets keys left with nothing (package-private: tests that
     * move time call it).
     *
     * @return completes when the backend has them back
     */
    CompletableFuture<Void> sweep() {
        long now = ticker.millis();
        List<Held> later = new ArrayList<>();
        for (Held h = holds.peek(); h != null && h.until() <= now; h = holds.peek()) {
            h = holds.poll();
            if (h == null) break;
            if (h.until() > now) {
                // Another sweep (a test's, beside the scheduler's) took the one we saw.
                holds.add(h);
                break;
            }
            Slot slot = h.slot();
            boolean ended = false;
            boolean empty;
            synchronized (slot) {
                if (slot.asking && (slot.current == h.stock() || slot.next == h.stock())) {
                    // The key's call in flight may reach the backend before or after a hand-back sent now, so what
                    // it says the key has left would be off by the stock: its answer hands the stock back itself,
                    // or the next sweep does.
                    later.add(h);
                    continue;
                }
                if (slot.current == h.stock()) {
                    slot.current = slot.next;
                    slot.next = null;
                    ended = true;
                } else if (slot.next == h.stock()) {
                    slot.next = null;
                    ended = true;
                }
                if (ended) {
                    slot.backendLeft += h.stock().left;
                    giveBack(h.stock());
                }
                empty = slot.current == null && slot.next == null && !slot.asking;
                if (empty) slot.dead = true;
            }
            // A stock already replaced was handed back when it was.
            if (empty) slots.remove(h.key(), slot);
        }
        holds.addAll(later);
        return CompletableFuture.allOf(returning.toArray(new CompletableFuture<?>[0]));
    }

    /** Forgets a key left with nothing and no call in flight (after a call that brought no stock). */
    private void forgetIfEmpty(String key, Slot slot) {
        boolean empty;
        synchronized (slot) {
            empty = slot.current == null && slot.next == null && !slot.asking && !slot.dead;
            if (empty) slot.dead = true;
        }
        if (empty) slots.remove(key, slot);
    }

    /**
     * Hands back what is left of {@code s}, which no request uses any more. Called under the lock of the slot it
     * was taken out of, so that a request that finds the stock gone finds its hand-back in {@link #returningTo}.
     */
    private CompletionStage<Void> giveBack(Stock s) {
        // Read by the thread that took the stock out of its slot, under the slot's lock: no request uses it now.
        long rest = s.left;
        s.left = 0;
        if (rest == 0) return CompletableFuture.completedFuture(null);
        CompletableFuture<Void> back;
        try {
            // Best effort: a permit that does not come back is taken until its window passes, as if used.
            back = backend.returnPrefetched(s.prefetch, rest).toCompletableFuture().exceptionally(ignored -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(null);
        }
        returning.add(back);
        String key = s.prefetch.request().key();
        returningTo.compute(key, (k, before) -> before == null || before.isDone() ? back : CompletableFuture.allOf(before, back));
        back.whenComplete((v, e) -> {
            handedBack.accept(key);
            returning.remove(back);
            returningTo.computeIfPresent(key, (k, pending) -> pending.isDone() ? null : pending);
        });
        return back;
    }

    /** When the first hold still queued for the sweep ends, on the ticker; {@link Long#MAX_VALUE} when none is (for tests). */
    long nextHoldEnd() {
        Held h = holds.peek();
        return h == null ? Long.MAX_VALUE : h.until();
    }

    /** Prefetched permits not yet used on this server (for tests and monitoring). */
    long held() {
        long held = 0;
        for (Slot slot : slots.values()) {
            synchronized (slot) {
                if (slot.current != null) held += slot.current.left;
                if (slot.next != null) held += slot.next.left;
            }
        }
        return held;
    }

    /** Hands every stock back, waiting a little for the backend: a server that stops strands none of its permits. */
    void close() {
        List<CompletableFuture<Void>> returns = new ArrayList<>();
        for (Slot slot : slots.values()) {
            List<Stock> back = new ArrayList<>(2);
            synchronized (slot) {
                slot.dead = true;
                if (slot.current != null) back.add(slot.current);
                if (slot.next != null) back.add(slot.next);
                slot.current = null;
                slot.next = null;
            }
            for (Stock s : back) returns.add(giveBack(s).toCompletableFuture());
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
