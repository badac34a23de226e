package io.sluice.engine.rate;

import io.sluice.engine.Ticker;
import io.sluice.Decision;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the attack shield knows: for each key near or over its limit, what the backend's last answer said remains
 * and for how long nothing frees, for one limit and capacity (a reload or a plan that changes a key's limit is
 * asked of the backend again). A request costing more than that is rejected without a round trip; a rejected
 * cost-10 request with 3 left never shields a cost-1 one. Which rules it serves is {@link RatePath}'s choice.
 * Thread-safe.
 */
final class Shield {
    /** Keys the shield remembers at most; past that it forgets the soonest to expire. */
    static final int MAX_KEYS = 100_000;

    /** Hand-backs counted in stripes of keys, so that an answer asked before one is not learnt after it. */
    private static final int RETURN_STRIPES = 1024;

    private final DenyCache denied = new DenyCache(MAX_KEYS);
    private final Ticker ticker;
    /**
     * Per stripe of keys, how many times permits came back ({@link #forget}). An answer computed before a hand-back
     * landed but heard after it would have the shield reject permits that are free again (a count=failure rule's
     * successes handing back all the time): a batch learns its answer only if no hand-back of its stripe came since
     * it was asked.
     */
    private final AtomicLongArray returns = new AtomicLongArray(RETURN_STRIPES);

    Shield(Ticker ticker) {
        this.ticker = ticker;
    }

    /** The shield's rejection of {@code ask} when its key is known to have less left than it costs, else null. */
    Decision screen(RateAsk ask) {
        RateRequest r = ask.request();
        if (!shieldable(r)) return null;
        long now = ticker.millis();
        DenyCache.Known known = denied.known(r.key(), now, r.limit(), capacity(r));
        if (known == null || cost(r) <= known.remaining()) return null;
        return shielded(ask.rule(), ask.limit(), known.remaining(), known.millisLeft(now));
    }

    /**
     * Remembers the key's state the backend answered to {@code r} asked at {@code askedAt}, while it is below
     * {@code near} (a key far from its limit is not remembered, so the allowed path writes nothing here), for at
     * most {@code capMillis}.
     */
    void learn(RateRequest r, long askedAt, long capMillis, long remaining, long resetMillis, long near) {
        if (remaining < near) denied.remember(r.key(), askedAt, Math.min(resetMillis, capMillis), remaining, r.limit(), capacity(r));
    }

    /**
     * What a batch's call answered, learnt as {@link #learn} does unless permits of its key's stripe came back since
     * the batch was asked: the answer may not count them.
     */
    void learn(Batch asked, RateRequest r, long capMillis, long remaining, long resetMillis, long near) {
        if (returns.get(stripe(r.key())) != asked.returnsAtAsk) return;
        learn(r, asked.now, capMillis, remaining, resetMillis, near);
    }

    /** Forgets a key: permits came back that what it knew counted as taken. */
    void forget(String key) {
        returns.incrementAndGet(stripe(key));
        denied.forget(key);
    }

    private static int stripe(String key) {
        return Math.floorMod(key.hashCode(), RETURN_STRIPES);
    }

    /** Forgets every key (after a reload: its entries hold per limit already; this frees the memory). */
    void clear() {
        denied.clear();
    }

    /** Screens one batch of a key's requests against what the shield knows, as each would find it in turn. */
    Batch batch(String key) {
        return new Batch(key, ticker.millis());
    }

    /**
     * One batch's screening: each request sent uses up what the shield knew remained, so the batch sends only
     * what may fit. Not thread-safe: one dispatch uses it.
     */
    final class Batch {
        private final String key;
        private final long now;
        /** Hand-backs of the key's stripe when the batch was asked. */
        private final long returnsAtAsk;
        private DenyCache.Known known;
        private long budget = Long.MAX_VALUE;
        private long maxCost;

        private Batch(String key, long now) {
            this.key = key;
            this.now = now;
            this.returnsAtAsk = returns.get(stripe(key));
        }

        /** The rejection of {@code ask} when what remains is used up by the batch's requests before it, else null. */
        RateAnswer.Screened screen(RateAsk ask) {
            RateRequest r = ask.request();
            if (!shieldable(r)) return null;
            if (known == null || !known.appliesTo(r.limit(), capacity(r), now)) {
                known = denied.known(key, now, r.limit(), capacity(r));
                budget = known == null ? Long.MAX_VALUE : known.remaining();
            }
            long c = cost(r);
            if (known != null && c > budget) return new RateAnswer.Screened(budget, known.millisLeft(now));
            if (known != null) budget = DenyCache.afterRequest(budget, c);
            maxCost = Math.max(maxCost, c);
            return null;
        }

        /** The largest shield cost of a request screened and sent. */
        long maxCost() {
            return maxCost;
        }

        /** When the batch was screened: when its call was asked. */
        long now() {
            return now;
        }
    }

    /** The decision of a request the shield rejects. */
    static Decision shielded(Rule rule, long limit, long remaining, long millis) {
        Duration wait = Duration.ofMillis(millis);
        return remaining == 0 ? Decision.shielded(rule, limit, wait) : Decision.rejected(rule, Decision.Kind.RATE, limit, remaining, wait, wait);
    }

    /** What the shield counts against: the capacity a request may ever take at once. */
    static long capacity(RateRequest r) {
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
    static long cost(RateRequest r) {
        return r.algorithm() == Algorithm.LEAKY_BUCKET ? 1 : r.cost();
    }

    /** A cost that can never fit is left to the backend, which says so (its own Retry-After and body). */
    static boolean shieldable(RateRequest r) {
        return r.algorithm() == Algorithm.LEAKY_BUCKET || r.cost() <= capacity(r);
    }
}
