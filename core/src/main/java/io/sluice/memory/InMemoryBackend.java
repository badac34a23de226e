package io.sluice.memory;

import io.sluice.spi.Entry;
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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Limits held in this JVM, with the same semantics as the Redisson backend: a sliding log of permits per
 * {@code sliding-log} key, the algorithm's {@link RateModel reference model} per key of the other algorithms
 * (on this backend's clock, since the JVM is the store), and leased permits per concurrency key. For unit tests (time comes from the injected clock)
 * and single-node use. Each capability has a home of its own, which this class reads the clock for, sweeps, and
 * delegates to: the logs, the models by key, the prefetched stocks, the leases, the blocks and the overrides. A waiting acquire ({@code wait > 0}) is answered at once: nothing here can free a
 * permit while the caller waits except another thread of this JVM, and tests drive time explicitly.
 *
 * <p>Idle state is dropped after its period (rates) or lease (semaphores without holders). Thread-safe.
 */
public final class InMemoryBackend implements LimiterBackend, Prefetching, Refunding, Announcing, KeyControl, Charging,
        Overriding {
    /** The sweep of idle state runs at most this often. */
    private static final long SWEEP_EVERY_MILLIS = 1000;
    private final Clock clock;
    private final SlidingLogs logs = new SlidingLogs();
    private final KeyModels models = new KeyModels();
    private final InMemoryLeases leases = new InMemoryLeases();
    private final InMemoryOverrides overrides = new InMemoryOverrides();
    private final Blocks blocks = new Blocks();
    private final InMemoryStocks stocks;
    private volatile long lastSweep;

    public InMemoryBackend(Clock clock) {
        this.clock = clock;
        this.stocks = new InMemoryStocks(logs, models, this::sweptNow, r -> tryConsume(r).toCompletableFuture().join());
    }

    public InMemoryBackend() {
        this(Clock.systemUTC());
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        long now = sweptNow();
        if (r.blocks()) return CompletableFuture.completedFuture(blocks.decide(r, now, () -> decide(r, now)));
        return CompletableFuture.completedFuture(decide(r, now));
    }

    private RateOutcome decide(RateRequest r, long now) {
        return r.algorithm() == Algorithm.SLIDING_LOG ? logs.decide(r, now) : models.consume(r, now);
    }

    @Override
    public CompletionStage<RateUsage> peek(RateRequest r) {
        long now = sweptNow();
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
    public CompletionStage<Void> refund(RateRequest r, Entry entry) {
        if (!r.algorithm().refundable()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(r.algorithm() + " cannot refund"));
        }
        long now = sweptNow();
        if (r.algorithm() == Algorithm.SLIDING_LOG) logs.refund(r, entry);
        else models.refund(r, entry, now);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * As the Redis backend does: the request, then up to {@code ahead} permits of cost 1 (a log's in one entry that
     * counts from the hold's end, a bucket's or a window counter's lent under an id); every algorithm but the leaky
     * bucket, under hard throttling, takes some. A token bucket's or a window counter's loan forgets the used-up
     * stocks first, as the scripts do.
     */
    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        if (!Prefetch.supported(r, ahead)) {
            return tryConsume(r).thenApply(o -> Prefetch.none(r, o));
        }
        return CompletableFuture.completedFuture(stocks.lend(r.withCost(1), r, ahead, hold, usedUp));
    }

    /**
     * As the Redis backend does: the permits alone (the outcome says only whether any were taken), forgetting the
     * used-up stocks first.
     */
    @Override
    public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        if (!Prefetch.supported(permit, ahead)) {
            return CompletableFuture.completedFuture(Prefetch.nothing(permit));
        }
        return CompletableFuture.completedFuture(stocks.lend(permit, null, ahead, hold, usedUp));
    }

    /**
     * A log's prefetch entry loses the unused permits (and leaves when none is left), its used permits logged again at
     * their uses, as return-log.lua does; a bucket gets the tokens back. Answers as the scripts do: less than
     * {@code unused} for a window counter's stock counted in a window that has ended.
     */
    @Override
    public CompletionStage<Long> returnPrefetched(Prefetch p, long unused, List<PrefetchUse> used) {
        return CompletableFuture.completedFuture(stocks.handBack(p, unused, used));
    }

    @Override
    public CompletionStage<Void> charge(RateRequest r) {
        if (!r.algorithm().settleable()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(r.algorithm() + " cannot take permits past its limit"));
        }
        long now = sweptNow();
        models.charge(r, now);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * A window counter's credit is the model's: nothing once the window its entry names counts no more; the other
     * algorithms' the whole cost.
     */
    @Override
    public CompletionStage<Long> refundCredited(RateRequest r, Entry entry) {
        if (r.algorithm() != Algorithm.FIXED_WINDOW && r.algorithm() != Algorithm.SLIDING_WINDOW) {
            return Refunding.super.refundCredited(r, entry);
        }
        long now = sweptNow();
        return CompletableFuture.completedFuture(models.refundCredited(r, entry, now));
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest r) {
        long now = sweptNow();
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

    /** The clock's time, after the sweep it may run. */
    private long sweptNow() {
        long now = clock.millis();
        sweep(now);
        return now;
    }

    /** Drops idle state; at most once a second, so the cost is spread thin. */
    private void sweep(long now) {
        if (now - lastSweep < SWEEP_EVERY_MILLIS && now >= lastSweep) return;
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
