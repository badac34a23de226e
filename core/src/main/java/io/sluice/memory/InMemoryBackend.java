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
    /** A refund without an entry id looks this far back for the entry to remove, as refund-log.lua does. */
    private static final int REFUND_SCAN = 64;
    /** How a request's log entry id starts (a stock's is a UUID's hex digits): what a refund may remove. */
    private static final String REQUEST_ENTRY = "r:";
    /** How long a hand-back that found no stock lent is remembered, as RedissonBackend's. */
    private static final long TOMBSTONE_MICROS = 60_000_000L;
    private final Clock clock;
    private final Map<String, SlidingLog> logs = new ConcurrentHashMap<>();
    private final KeyModels models = new KeyModels();
    private final InMemoryLeases leases = new InMemoryLeases();
    private final InMemoryOverrides overrides = new InMemoryOverrides();
    private final Blocks blocks = new Blocks();
    /** The last request's log entry number: each admitted request's entry has an id of its own. */
    private final AtomicLong lastEntry = new AtomicLong();

    public InMemoryBackend(Clock clock) {
        this.clock = clock;
    }

    public InMemoryBackend() {
        this(Clock.systemUTC());
    }

    /** A log entry: when it counts from, its permits, and its id (a request's, by which it is refunded, or a stock's). */
    private record Entry(long at, long permits, String id) {
    }

    /** Entries in the order of their time, as the script's sorted set (a prefetch's counts from its hold's end). */
    private static final class SlidingLog {
        final List<Entry> entries = new ArrayList<>();
        long used;
        long lastTouched;
        /** The latest time an entry counts from: the log lives until that has left the window too. */
        long latest;
        boolean dead;

        void add(Entry e) {
            int at = entries.size();
            while (at > 0 && entries.get(at - 1).at() > e.at()) at--;
            entries.add(at, e);
            used += e.permits();
            latest = Math.max(latest, e.at());
        }
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        long now = clock.millis();
        sweep(now);
        if (r.blocks()) return CompletableFuture.completedFuture(blocks.decide(r, now, () -> decide(r, now)));
        return CompletableFuture.completedFuture(decide(r, now));
    }

    private RateOutcome decide(RateRequest r, long now) {
        if (r.algorithm() != Algorithm.SLIDING_LOG) return models.consume(r, now);
        if (r.cost() > r.effectiveLimit()) {
            // Rejected, so it takes nothing: it only reads what the log holds.
            RateOutcome o = slidingLog(new RateRequest(r.key(), r.effectiveLimit(), r.period(), r.effectiveLimit() + 1), now);
            long extra = r.effectiveLimit() - r.limit();
            return new RateOutcome(false, Math.max(0, o.remaining() - extra), o.resetMillis(), RateOutcome.NEVER_FITS, 0, false);
        }
        if (!r.overage()) return slidingLog(r, now);
        // Soft or elastic: the log counts up to the effective limit; the answer speaks of the nominal one.
        long extra = r.effectiveLimit() - r.limit();
        RateOutcome o = slidingLog(new RateRequest(r.key(), r.effectiveLimit(), r.period(), r.cost()), now);
        return new RateOutcome(o.allowed(), Math.max(0, o.remaining() - extra), o.resetMillis(), o.retryAfterMillis(), 0,
                o.allowed() && o.remaining() < extra, o.entry());
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
        forget(logs.remove(r.key() + "|" + r.period().toMillis()));
        models.forget(r);
        return CompletableFuture.completedFuture(null);
    }

    private static void forget(SlidingLog log) {
        if (log == null) return;
        synchronized (log) {
            log.dead = true;
        }
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
        SlidingLog log = logs.get(r.key() + "|" + r.period().toMillis());
        if (log == null) return CompletableFuture.completedFuture(null);
        synchronized (log) {
            if (Prefetch.Receipt.namesUse(entry)) {
                refundUse(log, r.cost(), entry);
                return CompletableFuture.completedFuture(null);
            }
            // As the script does: the entry of that id, or without one the newest request entry of exactly that many
            // permits, leaves the log.
            int scanned = 0;
            for (ListIterator<Entry> it = log.entries.listIterator(log.entries.size());
                 it.hasPrevious() && (entry != null || scanned++ < REFUND_SCAN); ) {
                Entry e = it.previous();
                boolean match = entry != null ? entry.equals(e.id()) : e.id().startsWith(REQUEST_ENTRY);
                if (match && e.permits() == r.cost()) {
                    it.remove();
                    log.used -= e.permits();
                    break;
                }
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * A stock's use given back, as refund-log.lua does: {@code cost} permits off the stock's entry of the largest time
     * before its hold's end up to the use's ({@code stockId:ms}, the stock's id itself being 0), which holds the use or
     * the one it merged into.
     */
    private static void refundUse(SlidingLog log, long cost, String entry) {
        int mark = entry.indexOf(Prefetch.USE_MARK);
        String stock = entry.substring(0, mark);
        long usedBefore = Long.parseLong(entry.substring(mark + 1));
        int found = -1;
        long foundBefore = -1;
        for (int i = 0; i < log.entries.size(); i++) {
            String id = log.entries.get(i).id();
            long before = id.equals(stock) ? 0 : id.startsWith(stock + ":") ? Long.parseLong(id.substring(stock.length() + 1)) : -1;
            if (before >= 0 && before <= usedBefore && before > foundBefore) {
                found = i;
                foundBefore = before;
            }
        }
        if (found < 0) return;
        Entry e = log.entries.get(found);
        long off = Math.min(cost, e.permits());
        if (e.permits() > off) log.entries.set(found, new Entry(e.at(), e.permits() - off, e.id()));
        else log.entries.remove(found);
        log.used -= off;
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
        while (true) {
            SlidingLog log = logs.computeIfAbsent(permit.key() + "|" + interval, k -> new SlidingLog());
            synchronized (log) {
                if (log.dead) continue;
                RateOutcome own = r == null ? null
                        : r.cost() > r.limit() ? tryConsume(r).toCompletableFuture().join() : consume(log, r, now, interval, nextEntry());
                // As many permits as are free, up to ahead, in one entry that counts from the hold's end.
                if (own == null) expire(log, now, interval);
                long taken = Math.max(0, Math.min(ahead, permit.limit() - log.used));
                if (taken > 0) log.add(new Entry(now + hold.toMillis(), taken, id));
                long left = Math.max(0, permit.limit() - log.used);
                long reset = log.entries.isEmpty() ? 0 : Math.max(0, interval - (now - log.entries.get(0).at()));
                RateOutcome outcome = own != null ? own : new RateOutcome(taken > 0, left, reset, 0);
                return CompletableFuture.completedFuture(new Prefetch(outcome, permit, taken, left, taken == 0 ? null : new Prefetch.Receipt(id, taken)));
            }
        }
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
        SlidingLog log = logs.get(r.key() + "|" + r.period().toMillis());
        if (log == null) return CompletableFuture.completedFuture(null);
        synchronized (log) {
            for (ListIterator<Entry> it = log.entries.listIterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (!id.equals(e.id()) || e.permits() != p.receipt().permits()) continue;
                if (e.permits() > unused) it.set(new Entry(e.at(), e.permits() - unused, id));
                else it.remove();
                log.used -= unused;
                break;
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /** A log's stock: its used permits logged again at their uses, as return-log.lua does. */
    @Override
    public CompletionStage<Void> returnPrefetched(Prefetch p, long unused, List<PrefetchUse> used) {
        RateRequest r = p.request();
        if (r.algorithm() != Algorithm.SLIDING_LOG || used.isEmpty() || p.receipt() == null) return returnPrefetched(p, unused);
        p.handsBack(unused);
        String id = p.receipt().stockId();
        SlidingLog log = logs.get(r.key() + "|" + r.period().toMillis());
        if (log == null) return CompletableFuture.completedFuture(null);
        synchronized (log) {
            for (ListIterator<Entry> it = log.entries.listIterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (!id.equals(e.id()) || e.permits() != p.receipt().permits()) continue;
                it.remove();
                log.used -= e.permits();
                long kept = e.permits() - unused;
                // Uses at one time are one entry, named by that time (a give-back of a use finds it).
                Map<Long, Long> usedAt = new LinkedHashMap<>();
                for (PrefetchUse u : used) {
                    long n = Math.min(u.permits(), kept);
                    if (n <= 0 || u.beforeEndMillis() <= 0) continue;
                    usedAt.merge(u.beforeEndMillis(), n, Long::sum);
                    kept -= n;
                }
                usedAt.forEach((before, n) -> log.add(new Entry(e.at() - before, n, id + ":" + before)));
                if (kept > 0) log.add(new Entry(e.at(), kept, id));
                break;
            }
        }
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

    private RateOutcome slidingLog(RateRequest r, long now) {
        long interval = r.period().toMillis();
        while (true) {
            // The log keeps what was used, not what is left: a changed limit (a reload) applies to the usage at once.
            SlidingLog log = logs.computeIfAbsent(r.key() + "|" + interval, k -> new SlidingLog());
            synchronized (log) {
                if (!log.dead) return consume(log, r, now, interval, nextEntry());
            }
        }
    }

    /** Entries that have left the window at {@code now} leave the log. */
    private static void expire(SlidingLog log, long now, long interval) {
        log.lastTouched = now;
        int expired = 0;
        while (expired < log.entries.size() && log.entries.get(expired).at() <= now - interval) {
            log.used -= log.entries.get(expired++).permits();
        }
        log.entries.subList(0, expired).clear();
    }

    /** The id of a request's log entry, unique in this backend. */
    private String nextEntry() {
        return REQUEST_ENTRY + lastEntry.incrementAndGet();
    }

    /** {@code r} decided against the log; admitted, its entry is logged under {@code entry}, which the outcome carries. */
    private static RateOutcome consume(SlidingLog log, RateRequest r, long now, long interval, String entry) {
        {
            expire(log, now, interval);
            long free = r.limit() - log.used;
            boolean allowed = free >= r.cost();
            long wait = 0;
            if (allowed) {
                log.add(new Entry(now, r.cost(), entry));
                free -= r.cost();
            } else {
                long needed = r.cost() - free;
                wait = interval;
                for (Entry e : log.entries) {
                    needed -= e.permits();
                    if (needed <= 0) {
                        wait = interval - (now - e.at());
                        break;
                    }
                }
            }
            long reset = log.entries.isEmpty() ? 0 : Math.max(0, interval - (now - log.entries.get(0).at()));
            // Below 0 after a lowered limit: none left until the usage is under it.
            RateOutcome o = new RateOutcome(allowed, Math.max(0, free), reset, Math.max(0, wait));
            return allowed ? o.withEntry(entry) : o;
        }
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
        for (Iterator<Map.Entry<String, SlidingLog>> it = logs.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, SlidingLog> e = it.next();
            long interval = Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf('|') + 1));
            SlidingLog log = e.getValue();
            synchronized (log) {
                if (now - Math.max(log.lastTouched, log.latest) >= interval) {
                    log.dead = true;
                    it.remove();
                }
            }
        }
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
