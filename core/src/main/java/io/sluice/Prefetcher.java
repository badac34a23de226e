package io.sluice;

import io.sluice.internal.Ticker;
import io.sluice.rule.Rule;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Permits this server took from a key ahead of need (a rule's {@code prefetch}), handed out here without a round
 * trip until the hold ends; what is left then goes back to the backend. The limit stays exact: every prefetched
 * permit is taken in the backend, which counts it from the hold's end, so a key never admits more than its limit in
 * any window, on one server or many. What it costs is that permits one server holds are not the others' until it
 * uses them or hands them back (at most the hold later).
 *
 * <p>One key's stock at a time: a new prefetch replaces it and the old one's rest goes back. A stock serves only
 * requests of the limit it was taken for (a reload or another plan asks the backend again). Keys are held at most
 * {@link #MAX_KEYS}; past that, keys without a stock decide every request in the backend. Thread-safe.
 */
final class Prefetcher {
    /** Keys with a stock at most. */
    static final int MAX_KEYS = 100_000;
    /** How often ended holds are handed back when no request of their key comes to do it. */
    static final long SWEEP_MILLIS = 100;
    /** How long closing waits for the unused permits to go back. */
    private static final long CLOSE_RETURN_MILLIS = 2_000;

    private final LimiterBackend backend;
    private final Ticker ticker;
    private final EngineScheduler scheduler;
    private final ConcurrentHashMap<String, Stock> stocks = new ConcurrentHashMap<>();
    /** Keys with a prefetch in flight: one at a time per key; the others' requests meanwhile ask the backend. */
    private final ConcurrentHashMap<String, Boolean> fetching = new ConcurrentHashMap<>();
    private final AtomicBoolean sweeping = new AtomicBoolean();

    Prefetcher(LimiterBackend backend, Ticker ticker, EngineScheduler scheduler) {
        this.backend = backend;
        this.ticker = ticker;
        this.scheduler = scheduler;
    }

    /** One key's prefetched permits on this server, taken at {@code fetchedAt} and good until {@code until}. */
    private static final class Stock {
        final Prefetch prefetch;
        final long fetchedAt;
        final long until;
        long left; // guarded by this

        Stock(Prefetch prefetch, long fetchedAt, long until) {
            this.prefetch = prefetch;
            this.fetchedAt = fetchedAt;
            this.until = until;
            this.left = prefetch.taken();
        }

        /** Empties the stock: what was left, which its taker hands back. */
        synchronized long drain() {
            long rest = left;
            left = 0;
            return rest;
        }
    }

    /**
     * Pays for {@code request} from the key's stock.
     *
     * @return the decision, or null when the stock cannot pay (none, ended, another limit, too few left)
     */
    Decision take(Rule rule, RateRequest request) {
        Stock s = stocks.get(request.key());
        if (s == null) return null;
        long now = ticker.millis();
        long remaining;
        long reset;
        synchronized (s) {
            if (now >= s.until || s.left < request.cost() || !s.prefetch.request().equals(request.withCost(1))) return null;
            s.left -= request.cost();
            // What this server may still take: what the backend had left after the prefetch, and this stock's rest.
            remaining = s.prefetch.remaining() + s.left;
            reset = Math.max(0, s.prefetch.outcome().resetMillis() - (now - s.fetchedAt));
        }
        return Decision.allowed(rule, Decision.Kind.RATE, request.limit(), remaining, Duration.ofMillis(reset))
                .withCost(request.cost());
    }

    /**
     * Whether this request should prefetch: its key has no prefetch in flight (then it has one now, which
     * {@link #fetch} ends when the backend answers) and there is room for its stock.
     */
    boolean startFetch(String key) {
        if (stocks.size() >= MAX_KEYS && !stocks.containsKey(key)) return false;
        return fetching.putIfAbsent(key, Boolean.TRUE) == null;
    }

    /**
     * Asks the backend for the request and {@code ahead} permits for {@code hold}. The stock is kept when the backend
     * answers, even after the caller's deadline: the permits were taken either way.
     */
    CompletionStage<Prefetch> fetch(RateRequest request, long ahead, Duration hold) {
        String key = request.key();
        long sent = ticker.millis();
        CompletionStage<Prefetch> call;
        try {
            call = backend.tryConsumeAndPrefetch(request, ahead, hold);
        } catch (RuntimeException e) {
            fetching.remove(key);
            return CompletableFuture.failedFuture(e);
        }
        call.whenComplete((p, e) -> {
            try {
                if (p != null && p.taken() > 0) keep(key, new Stock(p, sent, sent + hold.toMillis()));
            } finally {
                fetching.remove(key);
            }
        });
        return call;
    }

    private void keep(String key, Stock stock) {
        Stock old = stocks.put(key, stock);
        if (old != null) giveBack(old);
        if (sweeping.compareAndSet(false, true)) {
            try {
                scheduler.withFixedDelay(() -> sweep(), SWEEP_MILLIS, SWEEP_MILLIS);
            } catch (RuntimeException closing) {
                sweeping.set(false);
            }
        }
    }

    /**
     * Hands back every stock whose hold has ended (package-private: tests that move time call it).
     *
     * @return completes when the backend has them back
     */
    CompletableFuture<Void> sweep() {
        long now = ticker.millis();
        List<CompletableFuture<Void>> returns = new ArrayList<>();
        for (var e : stocks.entrySet()) {
            Stock s = e.getValue();
            if (now >= s.until && stocks.remove(e.getKey(), s)) returns.add(giveBack(s).toCompletableFuture());
        }
        return CompletableFuture.allOf(returns.toArray(new CompletableFuture<?>[0]));
    }

    private CompletionStage<Void> giveBack(Stock s) {
        long rest = s.drain();
        if (rest == 0) return CompletableFuture.completedFuture(null);
        try {
            // Best effort: a permit that does not come back is taken until its window passes, as if used.
            return backend.returnPrefetched(s.prefetch, rest).exceptionally(ignored -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Prefetched permits not yet used on this server (for tests and monitoring). */
    long held() {
        long held = 0;
        for (Stock s : stocks.values()) {
            synchronized (s) {
                held += s.left;
            }
        }
        return held;
    }

    /** Hands every stock back, waiting a little for the backend: a server that stops strands none of its permits. */
    void close() {
        List<CompletableFuture<Void>> returns = new ArrayList<>();
        for (String key : stocks.keySet()) {
            Stock s = stocks.remove(key);
            if (s != null) returns.add(giveBack(s).toCompletableFuture());
        }
        try {
            CompletableFuture.allOf(returns.toArray(new CompletableFuture<?>[0])).get(CLOSE_RETURN_MILLIS, TimeUnit.MILLISECONDS);
        } catch (Exception stopping) {
            // Not back in time: those permits count as used until their window passes.
        }
    }
}
