package io.sluice.memory;

import io.sluice.spi.Algorithm;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Limits held in this JVM, with the same semantics as the Redisson backend: a sliding log of permits per
 * {@code sliding-log} key, the algorithm's {@link RateModel reference model} per key of the other algorithms
 * (on this backend's clock, since the JVM is the store), and leased permits per concurrency key. For unit tests (time comes from the injected clock)
 * and single-node use. A waiting acquire ({@code wait > 0}) is answered at once: nothing here can free a
 * permit while the caller waits except another thread of this JVM, and tests drive time explicitly.
 *
 * <p>Idle state is dropped after its period (rates) or lease (semaphores without holders). Thread-safe.
 */
public final class InMemoryBackend implements LimiterBackend {
    /** A refund looks this far back for the entry to remove, as refund-log.lua does. */
    private static final int REFUND_SCAN = 64;
    private final Clock clock;
    private final Map<String, SlidingLog> logs = new ConcurrentHashMap<>();
    private final Map<String, Modelled> models = new ConcurrentHashMap<>();
    private final Map<String, Leases> semaphores = new ConcurrentHashMap<>();

    public InMemoryBackend(Clock clock) {
        this.clock = clock;
    }

    public InMemoryBackend() {
        this(Clock.systemUTC());
    }

    private record Entry(long at, long permits) {
    }

    private static final class SlidingLog {
        final ArrayDeque<Entry> entries = new ArrayDeque<>();
        long used;
        long lastTouched;
        boolean dead;
    }

    private static final class Leases {
        final Map<String, Long> expiries = new HashMap<>();
        long lastTouched;
        boolean dead;
    }

    /** One key's reference model, and whether the sweep has dropped it. */
    private static final class Modelled {
        final RateModel model;
        boolean dead;

        Modelled(RateModel model) {
            this.model = model;
        }
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        long now = clock.millis();
        sweep(now);
        if (r.algorithm() != Algorithm.SLIDING_LOG) {
            return CompletableFuture.completedFuture(onModel(r, now, false));
        }
        if (r.cost() > r.effectiveLimit()) {
            // Rejected, so it takes nothing: it only reads what the log holds.
            RateOutcome o = slidingLog(new RateRequest(r.key(), r.effectiveLimit(), r.period(), r.effectiveLimit() + 1), now);
            long extra = r.effectiveLimit() - r.limit();
            return CompletableFuture.completedFuture(new RateOutcome(false, Math.max(0, o.remaining() - extra),
                    o.resetMillis(), RateOutcome.NEVER_FITS, 0, false));
        }
        if (!r.overage()) return CompletableFuture.completedFuture(slidingLog(r, now));
        // Soft or elastic: the log counts up to the effective limit; the answer speaks of the nominal one.
        long extra = r.effectiveLimit() - r.limit();
        RateOutcome o = slidingLog(new RateRequest(r.key(), r.effectiveLimit(), r.period(), r.cost()), now);
        return CompletableFuture.completedFuture(new RateOutcome(o.allowed(), Math.max(0, o.remaining() - extra),
                o.resetMillis(), o.retryAfterMillis(), 0, o.allowed() && o.remaining() < extra));
    }

    @Override
    public CompletionStage<Void> refund(RateRequest r) {
        if (!r.algorithm().refundable()) return LimiterBackend.super.refund(r);
        long now = clock.millis();
        sweep(now);
        if (r.algorithm() != Algorithm.SLIDING_LOG) {
            onModel(r, now, true);
            return CompletableFuture.completedFuture(null);
        }
        SlidingLog log = logs.get(r.key() + "|" + r.period().toMillis());
        if (log == null) return CompletableFuture.completedFuture(null);
        synchronized (log) {
            // As the script does: the newest entry of exactly that many permits leaves the log.
            int scanned = 0;
            for (Iterator<Entry> it = log.entries.descendingIterator(); it.hasNext() && scanned++ < REFUND_SCAN; ) {
                Entry e = it.next();
                if (e.permits() == r.cost()) {
                    it.remove();
                    log.used -= e.permits();
                    break;
                }
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Algorithms never share state, even under one key name. */
    private RateOutcome onModel(RateRequest r, long nowMillis, boolean refund) {
        long nowMicros = Math.multiplyExact(nowMillis, 1000L);
        while (true) {
            Modelled m = models.computeIfAbsent(r.algorithm().id() + "|" + r.key(),
                    k -> new Modelled(RateModel.of(r.algorithm())));
            synchronized (m) {
                if (m.dead) continue;
                if (refund) {
                    m.model.refund(r, nowMicros);
                    return null;
                }
                return m.model.consume(r, nowMicros);
            }
        }
    }

    private RateOutcome slidingLog(RateRequest r, long now) {
        long interval = r.period().toMillis();
        while (true) {
            // The log keeps what was used, not what is left: a changed limit (a reload) applies to the usage at once.
            SlidingLog log = logs.computeIfAbsent(r.key() + "|" + interval, k -> new SlidingLog());
            synchronized (log) {
                if (!log.dead) return consume(log, r, now, interval);
            }
        }
    }

    private static RateOutcome consume(SlidingLog log, RateRequest r, long now, long interval) {
        {
            log.lastTouched = now;
            while (!log.entries.isEmpty() && log.entries.peekFirst().at() <= now - interval) {
                log.used -= log.entries.pollFirst().permits();
            }
            long free = r.limit() - log.used;
            boolean allowed = free >= r.cost();
            long wait = 0;
            if (allowed) {
                log.entries.addLast(new Entry(now, r.cost()));
                log.used += r.cost();
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
            long reset = log.entries.isEmpty() ? 0 : Math.max(0, interval - (now - log.entries.peekFirst().at()));
            // Below 0 after a lowered limit: none left until the usage is under it.
            return new RateOutcome(allowed, Math.max(0, free), reset, Math.max(0, wait));
        }
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest r) {
        long now = clock.millis();
        sweep(now);
        while (true) {
            // The permits held, not the free count: a changed limit keeps them, and those above a lowered limit drain.
            Leases leases = semaphores.computeIfAbsent(r.key(), k -> new Leases());
            synchronized (leases) {
                if (leases.dead) continue;
                leases.lastTouched = now;
                leases.expiries.values().removeIf(expiry -> expiry <= now);
                if (leases.expiries.size() >= r.limit()) {
                    return CompletableFuture.completedFuture(new LeaseOutcome(null, 0));
                }
                String id = UUID.randomUUID().toString().replace("-", "");
                leases.expiries.put(id, now + r.lease().toMillis());
                return CompletableFuture.completedFuture(new LeaseOutcome(id, r.limit() - leases.expiries.size()));
            }
        }
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest r, String permitId) {
        long now = clock.millis();
        Leases leases = semaphores.get(r.key());
        if (leases == null) return CompletableFuture.completedFuture(false);
        synchronized (leases) {
            Long expiry = leases.expiries.get(permitId);
            if (expiry == null || expiry <= now) return CompletableFuture.completedFuture(false);
            leases.expiries.put(permitId, now + r.lease().toMillis());
            leases.lastTouched = now;
            return CompletableFuture.completedFuture(true);
        }
    }

    @Override
    public CompletionStage<Boolean> release(LeaseRequest r, String permitId) {
        long now = clock.millis();
        Leases leases = semaphores.get(r.key());
        if (leases == null) return CompletableFuture.completedFuture(false);
        synchronized (leases) {
            Long expiry = leases.expiries.remove(permitId);
            return CompletableFuture.completedFuture(expiry != null && expiry > now);
        }
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest r) {
        long now = clock.millis();
        Leases leases = semaphores.get(r.key());
        if (leases == null) return CompletableFuture.completedFuture(r.limit());
        synchronized (leases) {
            leases.expiries.values().removeIf(expiry -> expiry <= now);
            return CompletableFuture.completedFuture(Math.max(0, r.limit() - leases.expiries.size()));
        }
    }

    /** Number of keys held, for tests of idle expiry. */
    public int size() {
        lastSweep = Long.MIN_VALUE / 2;
        sweep(clock.millis());
        return logs.size() + semaphores.size() + models.size();
    }

    private volatile long lastSweep;

    /** Drops idle state; at most once a second, so the cost is spread thin. */
    private void sweep(long now) {
        if (now - lastSweep < 1000 && now >= lastSweep) return;
        lastSweep = now;
        for (Iterator<Map.Entry<String, SlidingLog>> it = logs.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, SlidingLog> e = it.next();
            long interval = Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf('|') + 1));
            SlidingLog log = e.getValue();
            synchronized (log) {
                if (now - log.lastTouched >= interval) {
                    log.dead = true;
                    it.remove();
                }
            }
        }
        long nowMicros = now * 1000;
        for (Iterator<Modelled> it = models.values().iterator(); it.hasNext(); ) {
            Modelled m = it.next();
            synchronized (m) {
                if (nowMicros >= m.model.idleAtMicros()) {
                    m.dead = true;
                    it.remove();
                }
            }
        }
        for (Iterator<Map.Entry<String, Leases>> it = semaphores.entrySet().iterator(); it.hasNext(); ) {
            Leases leases = it.next().getValue();
            synchronized (leases) {
                leases.expiries.values().removeIf(expiry -> expiry <= now);
                if (leases.expiries.isEmpty() && now - leases.lastTouched >= 1000) {
                    leases.dead = true;
                    it.remove();
                }
            }
        }
    }

    @Override
    public void close() {
        logs.clear();
        models.clear();
        semaphores.clear();
    }
}
