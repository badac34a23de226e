package io.sluice.memory;

import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The concurrency permits of {@link InMemoryBackend}, leased per key as the lease scripts keep them in Redis, with the
 * tombstones of permits released before their acquire arrived. Thread-safe: each key's state under its own lock.
 */
final class InMemoryLeases {
    /** How long a key with no permit held and no tombstone stays before the sweep drops it. */
    private static final long IDLE_MILLIS = 1000;

    private static final class Held {
        final Map<String, Long> expiries = new HashMap<>();
        /** Permits released before their acquire arrived, until when a later acquire of them takes nothing. */
        final Map<String, Long> released = new HashMap<>();
        long lastTouched;
        /** Dropped by the sweep: a caller that found it makes a new one. */
        boolean dead;
    }

    private final Map<String, Held> byKey = new ConcurrentHashMap<>();

    LeaseOutcome tryAcquire(LeaseRequest r, long now) {
        while (true) {
            // The permits held, not the free count: a changed limit keeps them, and those above a lowered limit drain.
            Held leases = byKey.computeIfAbsent(r.key(), k -> new Held());
            synchronized (leases) {
                if (leases.dead) continue;
                leases.lastTouched = now;
                leases.expiries.values().removeIf(expiry -> expiry <= now);
                leases.released.values().removeIf(until -> until <= now);
                String id = r.permitId();
                // As the script does: a permit given up on and released takes nothing; one held already is held once.
                if (leases.released.containsKey(id)) return new LeaseOutcome(null, 0);
                if (leases.expiries.containsKey(id)) {
                    return new LeaseOutcome(id, Math.max(0, r.limit() - leases.expiries.size()));
                }
                if (leases.expiries.size() >= r.limit()) {
                    return new LeaseOutcome(null, 0);
                }
                leases.expiries.put(id, now + r.lease().toMillis());
                return new LeaseOutcome(id, r.limit() - leases.expiries.size());
            }
        }
    }

    boolean renew(LeaseRequest r, String permitId, long now) {
        Held leases = byKey.get(r.key());
        if (leases == null) return false;
        synchronized (leases) {
            Long expiry = leases.expiries.get(permitId);
            if (expiry == null || expiry <= now) return false;
            leases.expiries.put(permitId, now + r.lease().toMillis());
            leases.lastTouched = now;
            return true;
        }
    }

    /** As the script does: a permit not held leaves a tombstone for one lease, so a later acquire of it takes nothing. */
    boolean release(LeaseRequest r, String permitId, long now) {
        while (true) {
            Held leases = byKey.computeIfAbsent(r.key(), k -> new Held());
            synchronized (leases) {
                if (leases.dead) continue;
                Long expiry = leases.expiries.remove(permitId);
                if (expiry != null && expiry > now) return true;
                leases.released.put(permitId, now + r.lease().toMillis());
                leases.lastTouched = now;
                return false;
            }
        }
    }

    int available(LeaseRequest r, long now) {
        Held leases = byKey.get(r.key());
        if (leases == null) return r.limit();
        synchronized (leases) {
            leases.expiries.values().removeIf(expiry -> expiry <= now);
            return Math.max(0, r.limit() - leases.expiries.size());
        }
    }

    /** Drops the expired permits and tombstones, and the keys left with neither once idle. */
    void sweep(long now) {
        for (Iterator<Map.Entry<String, Held>> it = byKey.entrySet().iterator(); it.hasNext(); ) {
            Held leases = it.next().getValue();
            synchronized (leases) {
                leases.expiries.values().removeIf(expiry -> expiry <= now);
                leases.released.values().removeIf(until -> until <= now);
                if (leases.expiries.isEmpty() && leases.released.isEmpty() && now - leases.lastTouched >= IDLE_MILLIS) {
                    leases.dead = true;
                    it.remove();
                }
            }
        }
    }

    int size() {
        return byKey.size();
    }

    void clear() {
        byKey.clear();
    }
}
