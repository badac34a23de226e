package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.EngineListener;
import io.sluice.engine.EngineScheduler;
import io.sluice.engine.KeyNaming;
import io.sluice.engine.Ticker;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.Decision;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.spi.Batching;
import io.sluice.spi.Charging;
import io.sluice.spi.Entry;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Prefetching;
import io.sluice.spi.Refunding;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Rate decisions: each request down its rule's {@link RatePath} (stock, shield, prefetch, breaker, then the backend
 * call, coalesced per key or borrowing for an elastic rule), and what a rejected request took given back. The
 * parts the paths share (the shield, the key's lanes, the prefetched stocks) live once per engine. An elastic
 * decision is reported once, for the elastic rule; the capacity rule's own counts (stats, meters) cover only
 * requests it matched itself, not what it lent. Thread-safe.
 */
public final class RateDecider {
    private final BackendGuard guard;
    private final KeyNaming naming;
    private final Ticker ticker;
    private final EngineListener listener;
    private final Shield shield;
    private final Prefetcher prefetcher;
    private final Refunds refunds;
    private final RatePath paths;
    /** Null for a backend that cannot take permits past the limit: a settled request keeps its estimate. */
    private final Charging charging;

    public RateDecider(LimiterBackend backend, BackendGuard guard, KeyNaming naming, Ticker ticker, EngineListener listener,
                EngineScheduler scheduler, Supplier<RuleSet> rules, IntSupplier servers) {
        this.guard = guard;
        this.naming = naming;
        this.ticker = ticker;
        this.listener = listener;
        this.shield = new Shield(ticker);
        // Each capability decided once: a backend without one takes the plain path, never a call that does nothing.
        this.prefetcher = backend instanceof Prefetching p ? new Prefetcher(p, ticker, scheduler, shield::forget, servers) : null;
        Refunding refunding = backend instanceof Refunding r ? r : null;
        this.charging = backend instanceof Charging c ? c : null;
        Batching batching = backend instanceof Batching b ? b : Batching.oneAfterAnother(backend);
        this.refunds = new Refunds(refunding, guard, shield, prefetcher);
        this.paths = new RatePath(backend, batching, refunding, guard, naming, ticker, listener, rules, shield, prefetcher, refunds,
                new LeakySlot(scheduler::later));
    }

    /** The permits this server prefetched, null when the backend cannot (for tests: {@link Prefetcher#sweep}). */
    public Prefetcher prefetcher() {
        return prefetcher;
    }

    /** The backend key of {@code rule} for the key value {@code raw} (for tests). */
    public String keyOf(Rule rule, String raw) {
        return naming.rate(rule, raw);
    }

    /** Hands back the permits this server prefetched and has not used. */
    public void close() {
        if (prefetcher != null) prefetcher.close();
    }

    /** After a reload: forgets what the shield knows (its entries hold per limit already; this frees the memory). */
    public void forgetShielded() {
        shield.clear();
        paths.forget();
    }

    /**
     * Hands back the {@code cost} permits an admitted decision of {@code rule} took for a request that another rule
     * then rejected (the contract's Evaluation: a rejected request spends nothing of the other rules), and completes
     * once the backend has them back or the deadline has passed, so that the key's next decision counts them as free.
     * Only what {@link Refunds#refundable} allows. A prefetching rule puts them back into the key's stock when it can
     * take them, else tells its prefetcher what the backend has back (the key's Remaining). They go back to what paid
     * for them: the overage when the decision was {@code overLimit}, else the nominal limit's count.
     */
    public CompletionStage<Void> giveBack(Rule rule, String raw, long cost, boolean overLimit) {
        return giveBack(rule, raw, cost, null, overLimit);
    }

    /**
     * As {@link #giveBack(Rule, String, long, boolean)}, for the permits the backend keeps under {@code entry} (the
     * {@link TakenEntry} of their decision; null when unknown): the request's own, whatever later requests took since. A
     * log's permits paid from this server's stock go back into it off their own use while it is held here, else in the
     * backend off that use once the stock's hand-back has landed. A window counter's (paid from a stock or not) go
     * into the key's stock in use only when that stock was counted in the same window, else off that window in the
     * backend ({@link Prefetcher#putBack(RateRequest, Entry)}).
     */
    public CompletionStage<Void> giveBack(Rule rule, String raw, long cost, Entry entry, boolean overLimit) {
        if (!Refunds.refundable(rule)) return CompletableFuture.completedFuture(null);
        RateRequest request = Refunds.paidFor(rule.ratePolicy().request(naming.rate(rule, raw), rule.rate().orElseThrow(), cost), overLimit);
        if (prefetches(rule)) {
            if (prefetcher.putBack(request, entry)) {
                shield.forget(request.key());
                return CompletableFuture.completedFuture(null);
            }
            // A stock's use is in the backend's log once the stock's hand-back has landed: that first.
            CompletableFuture<Void> back = entry instanceof Entry.StockUse ? prefetcher.handBacksInFlight(request.key()) : null;
            if (back != null) {
                return guard.bounded(back, guard.timeout()).handle((v, e) -> e)
                        .thenCompose(late -> late == null ? refunds.refund(rule, request, entry) : CompletableFuture.completedFuture(null));
            }
            return orderedRefund(rule, request, entry);
        }
        return refunds.refund(rule, request, entry);
    }

    /**
     * A prefetching key's refund, never beside another call of the key on this server: what a call's answer says the
     * key has left would count the refund or not depending on which Redis ran first, and the refund's credit is added
     * to it once landed (a sliding window's stock-paid permit given back while a refill was in flight answered
     * Remaining 1 where Redis had 0, issue 21). So the key's call in flight, and its requests being decided in the
     * backend without one ({@link OrderedStep}), land first, and the key's next call waits for the refund
     * ({@link Prefetcher#refunding}).
     */
    private CompletionStage<Void> orderedRefund(Rule rule, RateRequest request, Entry entry) {
        CompletableFuture<Void> landing = prefetcher.callsInFlight(request.key());
        CompletableFuture<Void> refund = landing == null
                ? refunds.refund(rule, request, entry).toCompletableFuture()
                : guard.bounded(landing, guard.timeout()).handle((v, e) -> null)
                        .thenCompose(v -> refunds.refund(rule, request, entry)).toCompletableFuture();
        return prefetcher.refunding(request.key(), refund);
    }

    /** As {@link #giveBack}, for permits a local decision took of this server's share ({@code on-backend-failure=local}). */
    public CompletionStage<Void> giveBackLocal(Rule rule, String raw, long cost) {
        return giveBackLocal(rule, raw, cost, null);
    }

    /** As {@link #giveBackLocal(Rule, String, long)}, for the permits the share keeps under {@code entry} (null: unknown). */
    public CompletionStage<Void> giveBackLocal(Rule rule, String raw, long cost, Entry entry) {
        if (Refunds.refundable(rule)) {
            guard.giveBackLocal(rule, rule.ratePolicy().request(naming.rate(rule, raw), rule.rate().orElseThrow(), cost), entry);
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * The request as the rule's {@code block} has it: a rejection blocks the key, unless the rule only measures
     * (dry run), whose rejections are never real.
     */
    public static RateRequest blocking(Rule rule, RateRequest request) {
        return rule.blocks() && !rule.dryRun() ? request.withBlock(rule.block().toMillis()) : request;
    }

    /** Forgets what this server knows of the rule's key (after a reset): the shield's rejection and its stocks. */
    public void forgetKey(Rule rule, String raw) {
        String key = naming.rate(rule, raw);
        shield.forget(key);
        if (prefetches(rule)) prefetcher.handBackAll(key);
    }

    /**
     * Takes {@code cost} more permits of {@code rule} for the key value {@code raw}, even past the limit: a request
     * settled at more than its estimate. Completes once the backend has them or the deadline has passed; a failed
     * charge leaves the key charged only the estimate.
     */
    public CompletionStage<Void> charge(Rule rule, String raw, long cost) {
        if (charging == null) return CompletableFuture.completedFuture(null);
        RateRequest request = rule.ratePolicy().request(naming.rate(rule, raw), rule.rate().orElseThrow(), cost);
        // What the shield knew of the key counted fewer permits taken; a stock here would pay past the debt.
        shield.forget(request.key());
        if (prefetches(rule)) prefetcher.handBackAll(request.key());
        CompletionStage<Void> charged;
        try {
            charged = charging.charge(request);
        } catch (RuntimeException e) {
            charged = CompletableFuture.failedFuture(e);
        }
        return guard.bounded(charged, guard.timeout()).handle((v, e) -> null);
    }

    /** Whether {@code rule} takes permits ahead: it asks for it and the backend can. */
    private boolean prefetches(Rule rule) {
        return prefetcher != null && rule.ratePolicy().prefetches();
    }

    public CompletionStage<Decision> decide(Rule rule, String raw, long cost) {
        return decide(rule, raw, cost, new TakenEntry());
    }

    /**
     * Decides {@code cost} permits of {@code rule} for the key value {@code raw}; admitted by the backend, where it keeps
     * them is in {@code entry} once the decision completes (what {@link #giveBack(Rule, String, long, Entry, boolean)} takes).
     */
    public CompletionStage<Decision> decide(Rule rule, String raw, long cost, TakenEntry entry) {
        long limit = rule.rate().orElseThrow().permits();
        RateRequest request = blocking(rule, rule.ratePolicy().request(naming.rate(rule, raw), rule.rate().get(), cost));
        if (request.neverFits()) {
            // Decided here: a cost above anything the rule admits is never handed to a script.
            Decision d = Decision.neverFits(rule, limit, 0, Duration.ZERO, cost);
            listener.decided(d, EngineListener.Source.RULE);
            return CompletableFuture.completedFuture(d);
        }
        long deadlineNanos = ticker.nanos() + guard.timeout().toNanos();
        return paths.forRule(rule).decide(new RateAsk(rule, request, limit, deadlineNanos, entry));
    }
}
