package io.sluice.memory;

import io.sluice.spi.Algorithm;
import io.sluice.spi.Announcing;
import io.sluice.spi.KeyControl;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Overriding;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.Prefetching;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.Charging;
import io.sluice.spi.RateUsage;
import io.sluice.spi.Refunding;
import io.sluice.spi.StoredOverride;
import io.sluice.spi.StoredOverrides;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Limits held in this JVM, with the same semantics as the Redisson backend: a sliding log of permits per
 * {@code sliding-log} key, the algorithm's {@link RateModel reference model} per key of the other algorithms
 * (on this backend's clock, since the JVM is the store), and leased permits per concurrency key. For unit tests (time comes from the injected clock)
 * and single-node use. A waiting acquire ({@code wait > 0}) is answered at once: nothing here can free a
 * permit while the caller waits except another thread of this JVM, and tests drive time explicitly.
 *
 * <p>Idle state is dropped after its period (rates) or lease (semaphores without holders). Thread-safe.
 */
public final class InMemoryBackend implements LimiterBackend, Prefetching, Refunding, Announcing, KeyControl, Charging,
        Overriding {
    /** How long a hand-back that found no stock lent is remembered, as RedissonBackend's. */
    private static final long TOMBSTONE_MICROS = 60_000_000L;
    private final Clock clock;
    private final SlidingLogs logs = new SlidingLogs();
    private final KeyModels models = new KeyModels();
    private final InMemoryLeases leases = new InMemoryLeases();
    private final InMemoryOverrides overrides = new InMemoryOverrides();
    private final Blocks blocks = new Blocks();

    public InMemoryBackend(Clock clock) {
        this.clock = clock;
    }

    public InMemoryBackend() {
        this(Clock.systemUTC());
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        long now = clock.millis();
        sweep(now);
        if (r.blocks()) return CompletableFuture.completedFuture(blocks.decide(r, now, () -> decide(r, now)));
        return CompletableFuture.completedFuture(decide(r, now));
    }

    private RateOutcome decide(RateRequest r, long now) {
        return r.algorithm() == Algorithm.SLIDING_LOG ? logs.decide(r, now) : models.consume(r, now);
    }

    @Override
    public CompletionStage<RateUsage> peek(RateRequest r) {
        long now = clock.millis();
        sweep(now);
        long blocked = r.blocks() ? blocks.left(r.key(), now) : 0;
        return CompletableFuture.completedFuture(RateUsage.of(decide(RateUsage.peekOf(r), now), blocked));
    }

    @Override
    public CompletionStage<Void> forget(RateRequest r) {
        blocks.lift(r.key());
        logs.forget(r);
        models.forget(r);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> refund(RateRequest r) {
        return refund(r, null);
    }

    /** A log gives back the entry of that id, as refund-log.lua does; without one, its newest request entry of that cost. */
    @Override
    public CompletionStage<Void> refund(RateRequest r, String entry) {
        if (!r.algorithm().refundable()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(r.algorithm() + " cannot refund"));
        }
        long now = clock.millis();
        sweep(now);
        if (r.algorithm() != Algorithm.SLIDING_LOG) {
            models.refund(r, entry, now);
            return CompletableFuture.completedFuture(null);
        }
        logs.refund(r, entry);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * As the Redis backend does: the request, then up to {@code ahead} permits of cost 1 (a log's in one entry that
     * counts from the hold's end, a bucket's or a window counter's lent under an id); every algorithm but the leaky
     * bucket, under hard throttling, takes some.
     */
    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold) {
        return tryConsumeAndPrefetch(r, ahead, hold, List.of());
    }

    /** As above; a token bucket's or a window counter's loan forgets the used-up stocks first, as the scripts do. */
    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        if (!Prefetch.supported(r, ahead)) {
            return tryConsume(r).thenApply(o -> Prefetch.none(r, o));
        }
        return prefetched(r.withCost(1), r, ahead, hold, usedUp);
    }

    /**
     * {@code r} (when not null) then up to {@code ahead} permits, a loan forgetting the used-up stocks {@code usedUp}
     * first; without {@code r} the outcome is the permits' own.
     */
    private CompletionStage<Prefetch> prefetched(RateRequest permit, RateRequest r, long ahead, Duration hold,
                                                 List<Prefetch.Receipt> usedUp) {
        long now = clock.millis();
        sweep(now);
        String id = UUID.randomUUID().toString().replace("-", "");
        List<String> forget = usedUp.stream().map(Prefetch.Receipt::stockId).toList();
        if (permit.algorithm() == Algorithm.TOKEN_BUCKET) {
            long nowMicros = Math.multiplyExact(now, 1000L);
            long lentMicros = Math.multiplyExact(hold.plus(Prefetch.RETURN_GRACE).toMillis(), 1000L);
            return models.under(permit, m -> {
                TokenBucketModel bucket = (TokenBucketModel) m;
                RateOutcome own = r == null ? null : bucket.consume(r, nowMicros);
                // One permit after another until one is rejected (the rest would be, alike), lent under the id.
                TokenBucketModel.Taken t = bucket.prefetch(permit, ahead, id, lentMicros, nowMicros, forget);
                long taken = t.taken();
                RateOutcome last = t.last();
                RateOutcome outcome = own != null ? own : new RateOutcome(taken > 0, last.remaining(), last.resetMillis(), last.retryAfterMillis());
                return CompletableFuture.completedFuture(new Prefetch(outcome, permit, taken, last.remaining(), taken == 0 ? null : new Prefetch.Receipt(id, taken)));
            });
        }
        if (permit.algorithm() != Algorithm.SLIDING_LOG) {
            return CompletableFuture.completedFuture(fromWindow(permit, r, ahead, hold, id, now, forget));
        }
        long interval = permit.period().toMillis();
        return CompletableFuture.completedFuture(logs.under(permit, log -> {
            RateOutcome own = r == null ? null
                    : r.cost() > r.limit() ? tryConsume(r).toCompletableFuture().join() : log.consume(r, now, interval, logs.nextEntry());
            // As many permits as are free, up to ahead, in one entry that counts from the hold's end.
            if (own == null) log.expire(now, interval);
            long taken = log.lend(id, ahead, permit.limit(), now + hold.toMillis());
            long left = log.left(permit.limit());
            RateOutcome outcome = own != null ? own : new RateOutcome(taken > 0, left, log.resetMillis(now, interval), 0);
            return new Prefetch(outcome, permit, taken, left, taken == 0 ? null : new Prefetch.Receipt(id, taken));
        }));
    }

    /**
     * A window counter's prefetch: {@code r} (when not null) then up to {@code ahead} permits lent under {@code id}, as a
     * bucket's are, for the hold and a grace.
     */
    private Prefetch fromWindow(RateRequest permit, RateRequest r, long ahead, Duration hold, String id, long now, List<String> usedUp) {
        long nowMicros = Math.multiplyExact(now, 1000L);
        long lentMicros = Math.multiplyExact(hold.plus(Prefetch.RETURN_GRACE).toMillis(), 1000L);
        return models.under(permit, m -> {
            RateOutcome own = r == null ? null : m.consume(r, nowMicros);
            WindowStocks.Taken t = m instanceof FixedWindowModel fixed ? fixed.prefetch(permit, ahead, id, lentMicros, nowMicros, usedUp)
                    : ((SlidingWindowModel) m).prefetch(permit, ahead, id, lentMicros, nowMicros, usedUp);
            long taken = t.taken();
            RateOutcome last = t.last();
            RateOutcome outcome = own != null ? own : last;
            return new Prefetch(outcome, permit, taken, last.remaining(), taken == 0 ? null : new Prefetch.Receipt(id, taken),
                    t.endsInMillis(), taken == 0 ? null : last.entry());
        });
    }

    /** As the Redis backend does: the permits alone (the outcome says only whether any were taken). */
    @Override
    public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold) {
        return prefetch(permit, ahead, hold, List.of());
    }

    /** As above, forgetting the used-up stocks first. */
    @Override
    public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        if (!Prefetch.supported(permit, ahead)) {
            return CompletableFuture.completedFuture(Prefetch.nothing(permit));
        }
        return prefetched(permit, null, ahead, hold, usedUp);
    }

    /** A log's prefetch entry loses the unused permits (and leaves when none is left); a bucket gets the tokens back. */
    @Override
    public CompletionStage<Void> returnPrefetched(Prefetch p, long unused) {
        if (!p.handsBack(unused)) return CompletableFuture.completedFuture(null);
        RateRequest r = p.request();
        String id = p.receipt().stockId();
        if (r.algorithm() != Algorithm.SLIDING_LOG) {
            handBackLent(r, id, unused);
            return CompletableFuture.completedFuture(null);
        }
        logs.ifHeld(r, log -> log.handBack(id, p.receipt().permits(), unused));
        return CompletableFuture.completedFuture(null);
    }

    /** A log's stock: its used permits logged again at their uses, as return-log.lua does. */
    @Override
    public CompletionStage<Void> returnPrefetched(Prefetch p, long unused, List<PrefetchUse> used) {
        RateRequest r = p.request();
        if (r.algorithm() != Algorithm.SLIDING_LOG || used.isEmpty() || p.receipt() == null) return returnPrefetched(p, unused);
        p.handsBack(unused);
        String id = p.receipt().stockId();
        logs.ifHeld(r, log -> log.handBack(id, p.receipt().permits(), unused, used));
        return CompletableFuture.completedFuture(null);
    }

    /**
     * A token bucket's or a window counter's stock {@code id} handed back, as their scripts do (a tombstone when none is
     * lent).
     */
    private void handBackLent(RateRequest permit, String id, long unused) {
        long now = clock.millis();
        sweep(now);
        long nowMicros = Math.multiplyExact(now, 1000L);
        models.under(permit, m -> {
            if (m instanceof TokenBucketModel bucket) bucket.handBack(permit, id, unused, TOMBSTONE_MICROS, nowMicros);
            else if (m instanceof FixedWindowModel fixed) fixed.handBack(permit, id, unused, TOMBSTONE_MICROS, nowMicros);
            else ((SlidingWindowModel) m).handBack(permit, id, unused, TOMBSTONE_MICROS, nowMicros);
            return null;
        });
    }

    @Override
    public CompletionStage<Void> charge(RateRequest r) {
        if (!r.algorithm().settleable()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(r.algorithm() + " cannot take permits past its limit"));
        }
        long now = clock.millis();
        sweep(now);
        models.charge(r, now);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * A window counter's credit is the model's: nothing once the window its entry names counts no more; the other
     * algorithms' the whole cost.
     */
    @Override
    public CompletionStage<Long> refundCredited(RateRequest r, String entry) {
        if (r.algorithm() != Algorithm.FIXED_WINDOW && r.algorithm() != Algorithm.SLIDING_WINDOW) {
            return Refunding.super.refundCredited(r, entry);
        }
        long now = clock.millis();
        sweep(now);
        return CompletableFuture.completedFuture(models.refundCredited(r, entry, now));
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest r) {
        long now = clock.millis();
        sweep(now);
        return CompletableFuture.completedFuture(leases.tryAcquire(r, now));
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest r, String permitId) {
        return CompletableFuture.completedFuture(leases.renew(r, permitId, clock.millis()));
    }

    @Override
    public CompletionStage<Boolean> release(LeaseRequest r, String permitId) {
        return CompletableFuture.completedFuture(leases.release(r, permitId, clock.millis()));
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest r) {
        return CompletableFuture.completedFuture(leases.available(r, clock.millis()));
    }

    /** Number of keys held, for tests of idle expiry. */
    public int size() {
        lastSweep = Long.MIN_VALUE / 2;
        sweep(clock.millis());
        return logs.size() + leases.size() + models.size() + blocks.size();
    }

    private volatile long lastSweep;

    /** Drops idle state; at most once a second, so the cost is spread thin. */
    private void sweep(long now) {
        if (now - lastSweep < 1000 && now >= lastSweep) return;
        lastSweep = now;
        blocks.sweep(now);
        logs.sweep(now);
        models.sweep(now);
        leases.sweep(now);
    }

    /** The store is this JVM's: one server shares it, whoever announces. */
    @Override
    public CompletionStage<Integer> announce(String key, String serverId, Duration goneAfter) {
        return CompletableFuture.completedFuture(1);
    }

    @Override
    public void close() {
        logs.clear();
        models.clear();
        leases.clear();
        blocks.clear();
    }

    @Override
    public CompletionStage<Void> putOverride(String prefix, StoredOverride override, long nowMillis) {
        return overrides.put(prefix, override, nowMillis);
    }

    @Override
    public CompletionStage<Boolean> removeOverride(String prefix, String rule, String hashedKey) {
        return overrides.remove(prefix, rule, hashedKey);
    }

    @Override
    public CompletionStage<Long> overridesVersion(String prefix) {
        return overrides.version(prefix);
    }

    @Override
    public CompletionStage<StoredOverrides> overrides(String prefix) {
        return overrides.all(prefix);
    }
}
