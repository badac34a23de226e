package io.sluice.memory;

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
 * rate key, and leased permits per concurrency key. For unit tests (time comes from the injected clock)
 * and single-node use. A waiting acquire ({@code wait > 0}) is answered at once: nothing here can free a
 * permit while the caller waits except another thread of this JVM, and tests drive time explicitly.
 *
 * <p>Idle state is dropped after its period (rates) or lease (semaphores without holders). Thread-safe.
 */
public final class InMemoryBackend implements LimiterBackend {
    private final Clock clock;
    private final Map<String, SlidingLog> logs = new ConcurrentHashMap<>();
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

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        long now = clock.millis();
        long interval = r.period().toMillis();
        sweep(now);
        while (true) {
            SlidingLog log = logs.computeIfAbsent(r.key() + "|" + r.limit() + "|" + interval, k -> new SlidingLog());
            synchronized (log) {
                if (!log.dead) return CompletableFuture.completedFuture(consume(log, r, now, interval));
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
            return new RateOutcome(allowed, free, reset, Math.max(0, wait));
        }
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest r) {
        long now = clock.millis();
        sweep(now);
        while (true) {
            Leases leases = semaphores.computeIfAbsent(r.key() + "|" + r.limit(), k -> new Leases());
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
        Leases leases = semaphores.get(r.key() + "|" + r.limit());
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
        Leases leases = semaphores.get(r.key() + "|" + r.limit());
        if (leases == null) return CompletableFuture.completedFuture(false);
        synchronized (leases) {
            Long expiry = leases.expiries.remove(permitId);
            return CompletableFuture.completedFuture(expiry != null && expiry > now);
        }
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest r) {
        long now = clock.millis();
        Leases leases = semaphores.get(r.key() + "|" + r.limit());
        if (leases == null) return CompletableFuture.completedFuture(r.limit());
        synchronized (leases) {
            leases.expiries.values().removeIf(expiry -> expiry <= now);
            return CompletableFuture.completedFuture(r.limit() - leases.expiries.size());
        }
    }

    /** Number of keys held, for tests of idle expiry. */
    public int size() {
        lastSweep = Long.MIN_VALUE / 2;
        sweep(clock.millis());
        return logs.size() + semaphores.size();
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
        semaphores.clear();
    }
}
