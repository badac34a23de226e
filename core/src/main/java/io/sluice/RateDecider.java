package io.sluice;

import io.sluice.internal.DecisionListener;
import io.sluice.internal.Coalescer;
import io.sluice.internal.DenyCache;
import io.sluice.internal.Elastic;
import io.sluice.internal.Ticker;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.rule.Throttling;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Batching;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Prefetch;
import io.sluice.spi.Prefetching;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.Refunding;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Rate decisions: one backend call per request, coalesced per key, with the attack shield in front.
 *
 * <p>Coalescing: while a call for a key is in flight, later decisions for that key wait and then go together,
 * in arrival order, as one backend call ({@link Batching#tryConsumeAll}) that decides each of them as
 * sequential calls at that instant would, at most {@link #MAX_BATCH} at a time. An idle key's decision goes at
 * once, alone. A decision's deadline starts when its call is sent; one queued behind a call that failed (Redis
 * down, or past the deadline) fails with it, unsent, so waiting its turn never makes it cost more than a deadline
 * of a Redis that does not answer.
 *
 * <p>The shield: the backend's last answer for a key says what remains and for how long nothing frees; until
 * then a request costing more than that is rejected here, without a round trip, and so is a queued one before
 * its batch is sent (which is how the callers that waited for a call on an exhausted key are answered). A
 * rejected cost-10 request with 3 left never shields a cost-1 request. Only {@code hard} rules are shielded
 * ({@code soft} and {@code elastic} may go past a nominal "0 remaining"), and dry-run rules always ask the
 * backend: they exist to measure. What the shield knows holds for one limit and capacity: a reload or a plan
 * that changes a key's limit is asked of the backend again.
 *
 * <p>An {@code elastic} rule over its nominal limit borrows from its {@code capacity} rule ({@link Elastic}): the
 * capacity rule is looked up by name in the engine's current rules on every such decision, so a reloaded rule set
 * lends from its own. Such a decision is reported once, for the elastic rule; the capacity rule's own counts
 * (stats, meters) cover only requests it matched itself, not what it lent. The two or three calls of an elastic
 * decision share one {@code sluice.backend-timeout}, and are not coalesced. Thread-safe.
 */
final class RateDecider {
    /** Keys the shield remembers at most; past that it forgets the soonest to expire. */
    static final int SHIELD_MAX_KEYS = 100_000;
    /** Decisions for one key in one backend call at most; more wait for the next call. */
    static final int MAX_BATCH = 64;
    /** A queued decision the shield answered before its batch was sent. */
    private static final RateOutcome SCREENED = new RateOutcome(false, 0, 0, 0);

    private final LimiterBackend backend;
    /** The backend's batching, or one call per request for a backend without it. */
    private final Batching batching;
    /** Null for a backend that cannot refund: permits once taken stay taken. */
    private final Refunding refunding;
    private final BackendGuard guard;
    private final KeyNaming naming;
    private final Ticker ticker;
    private final DecisionListener listener;
    private final EngineScheduler scheduler;
    private final DenyCache denied = new DenyCache(SHIELD_MAX_KEYS);
    private final Coalescer<Pending> lanes = new Coalescer<>(MAX_BATCH, this::dispatch);
    /** Null for a backend that cannot prefetch: every request is decided in the backend. */
    private final Prefetcher prefetcher;
    /** The rules in effect, where an elastic rule finds its capacity rule. */
    private final Supplier<RuleSet> rules;

    RateDecider(LimiterBackend backend, BackendGuard guard, KeyNaming naming, Ticker ticker, DecisionListener listener,
                EngineScheduler scheduler, Supplier<RuleSet> rules) {
        this.rules = rules;
        this.backend = backend;
        this.batching = backend instanceof Batching b ? b : Batching.oneAfterAnother(backend);
        this.refunding = backend instanceof Refunding r ? r : null;
        this.scheduler = scheduler;
        this.guard = guard;
        this.naming = naming;
        this.ticker = ticker;
        this.listener = listener;
        this.prefetcher = backend instanceof Prefetching p ? new Prefetcher(p, ticker, scheduler, denied::forget) : null;
    }

    /** The permits this server prefetched (for tests: {@link Prefetcher#sweep}, {@link Prefetcher#held}). */
    Prefetcher prefetcher() {
        return prefetcher;
    }

    /** The backend key of {@code rule} for the key value {@code raw} (for tests). */
    String keyOf(Rule rule, String raw) {
        return naming.rate(rule, raw);
    }

    /** Hands back the permits this server prefetched and has not used. */
    void close() {
        if (prefetcher != null) prefetcher.close();
    }

    /** One decision waiting for (or in) a backend call. */
    private static final class Pending {
        final RateRequest request;
        final boolean shield;
        /** How long the shield may remember this decision's answer at most (see {@link #shieldFor}). */
        final long shieldCapMillis;
        /** What the backend answered, {@link #SCREENED}, or the failure the rule's failure policy decides. */
        final CompletableFuture<RateOutcome> outcome = new CompletableFuture<>();
        /** The backend's own answer whenever it comes, after the deadline too; never, when the call was not sent. */
        final CompletableFuture<RateOutcome> answered = new CompletableFuture<>();
        /** Set before {@link #outcome} completes with {@link #SCREENED}. */
        long screenedMillis;
        long screenedRemaining;

        Pending(RateRequest request, boolean shield, long shieldCapMillis) {
            this.request = request;
            this.shield = shield;
            this.shieldCapMillis = shieldCapMillis;
        }
    }

    /** After a reload: forgets what the shield knows (its entries hold per limit already; this frees the memory). */
    void forgetShielded() {
        denied.clear();
    }

    /**
     * Hands back the {@code cost} permits an admitted decision of {@code rule} took for a request that another rule
     * then rejected (the contract's Evaluation: a rejected request spends nothing of the other rules), and completes
     * once the backend has them back or the deadline has passed, so that the key's next decision counts them as free.
     * Refundable algorithms under hard or soft throttling only: a leaky bucket's slot cannot be given back, and an
     * elastic decision may have borrowed from its capacity rule, which its answer does not say; both keep what they
     * took. A failed hand-back leaves the permits counted: the safe side. A prefetching rule puts them back into the
     * key's stock when it can take them, else tells its prefetcher what the backend has back (the key's Remaining).
     */
    CompletionStage<Void> giveBack(Rule rule, String raw, long cost) {
        if (!refundable(rule)) return CompletableFuture.completedFuture(null);
        RateRequest request = rule.ratePolicy().request(naming.rate(rule, raw), rule.rate().orElseThrow(), cost);
        if (prefetches(rule) && prefetcher.putBack(request)) {
            denied.forget(request.key());
            return CompletableFuture.completedFuture(null);
        }
        return refund(rule, request);
    }

    /** Whether {@code rule} takes permits ahead: it asks for it and the backend can. */
    private boolean prefetches(Rule rule) {
        return prefetcher != null && rule.ratePolicy().prefetches();
    }

    /** Whether what a decision of {@code rule} admitted can be given back (see {@link #giveBack}). */
    private static boolean refundable(Rule rule) {
        return rule.ratePolicy().throttling() != Throttling.ELASTIC && rule.ratePolicy().algorithm().refundable();
    }

    /** Gives {@code request}'s permits back to the backend, within the deadline; a prefetcher learns the key has them. */
    private CompletionStage<Void> refund(Rule rule, RateRequest request) {
        // What the shield knew of the key counted these permits as taken.
        denied.forget(request.key());
        boolean prefetches = prefetches(rule);
        // A backend that cannot refund keeps the permits until its window frees them.
        if (refunding == null) return CompletableFuture.completedFuture(null);
        CompletionStage<Void> refund;
        try {
            refund = refunding.refund(request);
        } catch (RuntimeException e) {
            refund = CompletableFuture.failedFuture(e);
        }
        if (prefetches) refund = refund.thenRun(() -> prefetcher.refunded(request));
        return guard.bounded(refund, guard.timeout()).handle((v, e) -> null);
    }

    CompletionStage<Decision> decide(Rule rule, String raw, long cost) {
        long limit = rule.rate().orElseThrow().permits();
        String key = naming.rate(rule, raw);
        RateRequest request = rule.ratePolicy().request(key, rule.rate().get(), cost);
        if (request.neverFits()) {
            // Decided here: a cost above anything the rule admits is never handed to a script.
            Decision d = Decision.neverFits(rule, limit, 0, Duration.ZERO, cost);
            listener.decided(d, DecisionListener.Source.RULE);
            return CompletableFuture.completedFuture(d);
        }
        // Under soft or elastic throttling the key may go past a nominal "0 remaining": only the backend knows.
        boolean shield = !rule.dryRun() && rule.ratePolicy().throttling() == Throttling.HARD;
        // The stock first: permits this server holds are not in what the shield last heard the backend had left.
        boolean prefetches = prefetches(rule);
        if (prefetches) return fromStockFirst(rule, request, limit, key, shield, ticker.nanos() + guard.timeout().toNanos(), true);
        return notFromStock(rule, request, limit, key, shield);
    }

    /**
     * A prefetching rule's decision: from the key's stock when it can pay; else, once the key's call in flight (a
     * refill) has landed, from what it brought, or after the key's stocks of another limit are back. Those waits
     * share one deadline ({@code deadlineNanos}, on the ticker): a backend too slow for them decides the request by
     * the failure policy.
     */
    private CompletionStage<Decision> fromStockFirst(Rule rule, RateRequest request, long limit, String key, boolean shield,
                                                     long deadlineNanos, boolean mayWait) {
        Decision local = prefetcher.take(rule, request);
        if (local != null) {
            listener.decided(local, DecisionListener.Source.PREFETCH);
            return CompletableFuture.completedFuture(local);
        }
        CompletableFuture<Void> landing = mayWait ? prefetcher.inFlight(key) : null;
        if (landing != null) {
            // A hand-back sent while a call of the key is in flight may reach Redis before or after it, and what its
            // answer says the key has left would be off by the stock: the call lands first (within the deadline).
            return afterWaiting(landing, left(deadlineNanos), rule, limit,
                    () -> fromStockFirst(rule, request, limit, key, shield, deadlineNanos, false));
        }
        // A stock of another limit (a plan, a reload) is the key's permits: back before this request is decided, as
        // is every stock this server is handing back (the backend would count its permits as still taken).
        prefetcher.handBackOtherLimits(request);
        CompletableFuture<Void> back = prefetcher.handBacksInFlight(key);
        if (back != null) {
            return afterWaiting(back, left(deadlineNanos), rule, limit, () -> notFromStock(rule, request, limit, key, shield));
        }
        return notFromStock(rule, request, limit, key, shield);
    }

    /**
     * Goes on with {@code then} once {@code wait} (the key's call or hand-backs, never a failure) has completed
     * within {@code within}; past it, the backend is too slow and the rule's failure policy decides.
     */
    private CompletionStage<Decision> afterWaiting(CompletableFuture<Void> wait, Duration within, Rule rule, long limit,
                                                   Supplier<CompletionStage<Decision>> then) {
        return guard.bounded(wait, within).handle((v, e) -> e).thenCompose(late -> late == null ? then.get()
                : CompletableFuture.completedFuture(guard.failure(rule, Decision.Kind.RATE, limit, late)));
    }

    /** What is left of a decision's deadline. */
    private Duration left(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - ticker.nanos()));
    }

    /** A request the key's stock on this server cannot pay for: the shield, the key's call in flight, or the backend. */
    private CompletionStage<Decision> notFromStock(Rule rule, RateRequest request, long limit, String key, boolean shield) {
        boolean prefetches = prefetches(rule);
        if (shield && shieldable(request)) {
            long now = ticker.millis();
            DenyCache.Known known = denied.known(key, now, request.limit(), capacity(request));
            if (known != null && shieldCost(request) > known.remaining()) {
                Decision d = shielded(rule, limit, known.remaining(), known.millisLeft(now));
                listener.decided(d, DecisionListener.Source.SHIELD);
                return CompletableFuture.completedFuture(d);
            }
        }
        if (prefetches) {
            // A call for the key's stock is in flight: wait for its stock rather than ask beside it (which could find
            // the last permits gone into that very stock).
            CompletableFuture<Void> landing = prefetcher.inFlight(key);
            if (landing != null) return afterLanding(rule, request, limit, shield, landing);
            if (guard.allows() && prefetcher.startFetch(key)) return prefetch(rule, request, limit, shield);
        }
        return ask(rule, request, limit, shield);
    }

    /**
     * Pays from the stock the key's call in flight brings, once it has landed, or asks the backend when it brought
     * none that fits; the wait is bounded by the deadline, as the request's own call would be.
     */
    private CompletionStage<Decision> afterLanding(Rule rule, RateRequest request, long limit, boolean shield,
                                                   CompletableFuture<Void> landing) {
        return afterWaiting(landing, guard.timeout(), rule, limit, () -> {
            Decision local = prefetcher.take(rule, request);
            if (local == null) return ask(rule, request, limit, shield);
            listener.decided(local, DecisionListener.Source.PREFETCH);
            return CompletableFuture.completedFuture(local);
        });
    }

    /**
     * The request and the rule's {@code prefetch} in one backend call, under the usual deadline; the permits taken
     * ahead pay for the key's next requests on this server. One prefetch at a time per key: requests that meanwhile
     * find no stock are decided in the backend as usual.
     */
    private CompletionStage<Decision> prefetch(Rule rule, RateRequest request, long limit, boolean shield) {
        long now = ticker.millis();
        CompletionStage<Prefetch> call = prefetcher.fetch(request, rule.ratePolicy().prefetch(), rule.ratePolicy().prefetchHold());
        return guard.call(call, guard.timeout()).handle((p, e) -> {
            if (e != null) {
                Decision d = failure(rule, limit, request.cost(), e);
                call.thenAccept(late -> undoIfDenied(rule, request, d, late.outcome()));
                return d;
            }
            // Nothing taken ahead: the key is near its limit, which the shield keeps to itself as after any call.
            if (shield && p.taken() == 0 && shieldable(request) && p.remaining() < (long) MAX_BATCH * shieldCost(request)) {
                denied.remember(request.key(), now, Math.min(p.outcome().resetMillis(), shieldFor(rule)), p.remaining(),
                        request.limit(), capacity(request));
            }
            Decision d = decision(rule, limit, request.cost(), p.outcome());
            listener.decided(d, DecisionListener.Source.BACKEND);
            return d;
        });
    }

    private static Decision shielded(Rule rule, long limit, long remaining, long millis) {
        Duration wait = Duration.ofMillis(millis);
        return remaining == 0 ? Decision.shielded(rule, limit, wait) : Decision.rejected(rule, Decision.Kind.RATE, limit, remaining, wait, wait);
    }

    /** What the shield counts against: the capacity a request may ever take at once. */
    private static long capacity(RateRequest r) {
        return switch (r.algorithm()) {
            case TOKEN_BUCKET -> r.burst();
            case LEAKY_BUCKET -> r.queue();
            default -> r.limit();
        };
    }

    /**
     * What a request takes from the shield's "remaining": its cost, except in a leaky bucket, which admits any
     * cost while a place is free (the cost only moves the next slot), so every request counts as one there.
     */
    private static long shieldCost(RateRequest r) {
        return r.algorithm() == Algorithm.LEAKY_BUCKET ? 1 : r.cost();
    }

    /** A cost that can never fit is left to the backend, which says so (its own Retry-After and body). */
    private static boolean shieldable(RateRequest r) {
        return r.algorithm() == Algorithm.LEAKY_BUCKET || r.cost() <= capacity(r);
    }

    private CompletionStage<Decision> ask(Rule rule, RateRequest request, long limit, boolean shield) {
        if (!guard.allows()) return CompletableFuture.completedFuture(guard.circuitOpen(rule, Decision.Kind.RATE, limit));
        CompletionStage<RateOutcome> outcome;
        CompletionStage<RateOutcome> answered;
        Pending p = null;
        if (rule.ratePolicy().throttling() == Throttling.ELASTIC) {
            answered = elastic(rule, request);
            outcome = guard.call(answered, guard.timeout());
        } else {
            p = new Pending(request, shield, shieldFor(rule));
            lanes.submit(request.key(), p);
            outcome = p.outcome;
            answered = p.answered;
        }
        Pending queued = p;
        long cost = request.cost();
        return outcome.handle((RateOutcome o, Throwable e) -> {
            if (e != null) {
                Decision d = failure(rule, limit, cost, e);
                answered.thenAccept(late -> undoIfDenied(rule, request, d, late));
                return CompletableFuture.completedFuture(d);
            }
            if (o == SCREENED) {
                Decision d = shielded(rule, limit, queued.screenedRemaining, queued.screenedMillis);
                listener.decided(d, DecisionListener.Source.SHIELD);
                return CompletableFuture.completedFuture(d);
            }
            if (prefetches(rule)) {
                // This server's stock of the key is the key's: remaining counts it, as without prefetch.
                o = new RateOutcome(o.allowed(), prefetcher.remaining(request, o.remaining(), o.resetMillis()), o.resetMillis(),
                        o.retryAfterMillis(), o.delayMillis(), o.overLimit());
            }
            Decision d = decision(rule, limit, cost, o);
            listener.decided(d, DecisionListener.Source.BACKEND);
            return o.allowed() && o.delayMillis() > 0 ? atSlot(d, o.delayMillis()) : CompletableFuture.completedFuture(d);
        }).thenCompose(decided -> decided);
    }

    /**
     * What Redis did late is undone: a call answered after its deadline, whose request {@code on-backend-failure}
     * denied meanwhile, gave back what it admitted (a permit the request never used). Failed open, the request went
     * on: its permit is its own. Not undone where a rejection's are not either (see {@link #giveBack}), except an
     * elastic decision the answer shows within the nominal limit (nothing borrowed) of a counting algorithm.
     */
    private void undoIfDenied(Rule rule, RateRequest request, Decision failed, RateOutcome late) {
        if (!late.allowed() || !failed.rejects()) return;
        boolean withinLimit = rule.ratePolicy().throttling() == Throttling.ELASTIC && !late.overLimit()
                && rule.ratePolicy().algorithm().refundable() && request.algorithm() != Algorithm.TOKEN_BUCKET;
        if (refundable(rule) || withinLimit) refund(rule, request);
    }

    /** A failed call's decision: the rule's rejection when the request itself was refused, else on-backend-failure. */
    private Decision failure(Rule rule, long limit, long cost, Throwable e) {
        return BackendGuard.causedByRequest(e) ? guard.refused(rule, limit, cost, e) : guard.failure(rule, Decision.Kind.RATE, limit, e);
    }

    /**
     * How long the shield may trust that nothing frees before the backend's reset: until then, unless the rule
     * prefetches, since then any server may hand permits back, at the latest when its hold ends.
     */
    private static long shieldFor(Rule rule) {
        return rule.ratePolicy().prefetches() ? rule.ratePolicy().prefetchHold().toMillis() : Long.MAX_VALUE;
    }

    /** The decision the backend's answer {@code o} makes. */
    private static Decision decision(Rule rule, long limit, long cost, RateOutcome o) {
        Duration reset = Duration.ofMillis(o.resetMillis());
        if (o.allowed()) return Decision.allowed(rule, Decision.Kind.RATE, limit, o.remaining(), reset).withCost(cost);
        if (o.neverFits()) return Decision.neverFits(rule, limit, o.remaining(), reset, cost);
        Duration retry = Duration.ofMillis(Math.max(o.retryAfterMillis(), o.resetMillis()));
        return Decision.rejected(rule, Decision.Kind.RATE, limit, o.remaining(), reset, retry).withCost(cost);
    }

    /** An elastic rule's own key, then, over its nominal limit, its capacity rule's. */
    private CompletionStage<RateOutcome> elastic(Rule rule, RateRequest request) {
        // A dry-run rule never borrows: what it took would be missing from rules that enforce.
        RateRequest capacity = rule.dryRun() ? null : capacityRequest(rule, request.cost()).orElse(null);
        try {
            return Elastic.consume(backend, refunding, request, capacity);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The capacity rule's request for what an elastic rule borrows: its own {@code global} key, built exactly as
     * its own requests are (same algorithm and limits, so the state is never rescaled between the two). Empty when
     * the current rules have no such rule, which a validated rule set never allows.
     */
    private Optional<RateRequest> capacityRequest(Rule rule, long cost) {
        return rule.ratePolicy().capacity().flatMap(name -> rules.get().get(name)).filter(Rule::limitsRate)
                .map(c -> c.ratePolicy().request(naming.rate(c, KeyResolver.GLOBAL), c.rate().get(), cost));
    }

    /**
     * Sends one batch of a key's decisions, once each caller of the key's previous batch has its answer. If that
     * call failed (Redis down, or slower than the deadline), the decisions that queued behind it fail with it,
     * unsent: so a frozen Redis costs a queued decision at most what remained of the deadline ahead of it. Else
     * those the shield now knows will be rejected are answered here, and the rest go in one backend call, each
     * under its own deadline from now: a decision of a healthy burst is not late for having waited its turn.
     * The shield learns the batch's last answer (the key's newest state) before any caller sees an answer.
     */
    private CompletionStage<Throwable> dispatch(String key, List<Pending> batch, Throwable behind) {
        if (behind != null) {
            for (Pending p : batch) p.outcome.completeExceptionally(behind);
            return CompletableFuture.completedFuture(null);
        }
        long now = ticker.millis();
        List<Pending> sent = new ArrayList<>(batch.size());
        DenyCache.Known known = null;
        long budget = Long.MAX_VALUE;
        long maxCost = 0;
        for (Pending p : batch) {
            RateRequest r = p.request;
            if (p.shield && shieldable(r)) {
                if (known == null || !known.appliesTo(r.limit(), capacity(r), now)) {
                    known = denied.known(key, now, r.limit(), capacity(r));
                    budget = known == null ? Long.MAX_VALUE : known.remaining();
                }
                long c = shieldCost(r);
                if (known != null && c > budget) {
                    p.screenedMillis = known.millisLeft(now);
                    p.screenedRemaining = budget;
                    p.outcome.complete(SCREENED);
                    continue;
                }
                if (known != null) budget = DenyCache.afterRequest(budget, c);
                maxCost = Math.max(maxCost, c);
            }
            sent.add(p);
        }
        if (sent.isEmpty()) return CompletableFuture.completedFuture(null);
        long shieldCost = maxCost;
        if (sent.size() == 1) {
            // The common case (an idle key): one call, no batch bookkeeping.
            Pending p = sent.get(0);
            CompletionStage<RateOutcome> one;
            try {
                one = backend.tryConsume(p.request);
            } catch (RuntimeException e) {
                one = CompletableFuture.failedFuture(e);
            }
            one.whenComplete((o, e) -> {
                if (e == null) p.answered.complete(o);
            });
            return guard.call(one, guard.timeout()).handle((o, e) -> {
                if (e != null) {
                    p.outcome.completeExceptionally(e);
                    // A request the backend refused fails alone: the key's next batch goes as after any answer.
                    return BackendGuard.causedByRequest(e) ? null : BackendGuard.unwrap(e);
                }
                learn(key, now, p, o, shieldCost);
                p.outcome.complete(o);
                return null;
            });
        }
        List<RateRequest> requests = new ArrayList<>(sent.size());
        for (Pending p : sent) requests.add(p.request);
        CompletionStage<List<RateOutcome>> call;
        try {
            call = batching.tryConsumeAll(requests);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        // Each decision's answer, under its deadline, reported to the breaker and the listener one by one.
        List<CompletableFuture<RateOutcome>> answers = new ArrayList<>(sent.size());
        CompletableFuture<?>[] bounded = new CompletableFuture<?>[sent.size()];
        for (int i = 0; i < sent.size(); i++) {
            CompletableFuture<RateOutcome> answer = new CompletableFuture<>();
            answers.add(answer);
            Pending p = sent.get(i);
            bounded[i] = guard.call(answer, guard.timeout()).whenComplete((o, e) -> {
                if (e != null) p.outcome.completeExceptionally(e);
                else p.outcome.complete(o);
            });
        }
        call.whenComplete((outcomes, e) -> {
            if (e != null) {
                for (CompletableFuture<RateOutcome> a : answers) a.completeExceptionally(e);
                return;
            }
            learn(key, now, sent.get(sent.size() - 1), outcomes.get(outcomes.size() - 1), shieldCost);
            for (int i = 0; i < answers.size(); i++) {
                sent.get(i).answered.complete(outcomes.get(i));
                answers.get(i).complete(outcomes.get(i));
            }
        });
        // The key's next batch goes once every decision of this one has its answer or has given up at its
        // deadline: a call stuck on a frozen Redis (until the client's own, maybe longer, timeout) holds up no
        // later batch for longer than the deadline.
        CompletableFuture<?> ended = bounded.length == 1 ? bounded[0] : CompletableFuture.allOf(bounded);
        return ended.handle((v, e) -> e == null || BackendGuard.causedByRequest(e) ? null : BackendGuard.unwrap(e));
    }

    /**
     * The shield learns the key's newest state, asked at {@code now}, from the last answer of a call. Remembered
     * while a batch could use it up: then the next batch sends only what may fit. A key far from its limit is not
     * remembered, so the allowed path writes nothing here.
     */
    private void learn(String key, long now, Pending last, RateOutcome newest, long maxCost) {
        if (last.shield && newest.remaining() < (long) MAX_BATCH * Math.max(1, maxCost)) {
            denied.remember(key, now, Math.min(newest.resetMillis(), last.shieldCapMillis), newest.remaining(),
                    last.request.limit(), capacity(last.request));
        }
    }

    /**
     * A leaky bucket's queued request is admitted at its slot: the decision completes then, from the engine's
     * thread (at most {@code queue} slots ahead, which the rule bounds). A filter's request waits for it on its
     * own thread; a {@code CompletionStage} caller holds no thread meanwhile.
     */
    private CompletionStage<Decision> atSlot(Decision d, long delayMillis) {
        CompletableFuture<Decision> slot = new CompletableFuture<>();
        if (!scheduler.later(() -> slot.complete(d), delayMillis)) slot.complete(d);
        return slot;
    }
}
