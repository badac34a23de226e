package io.sluice.internal;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Remembers, per rate key, until when the backend will say no. Within that time nothing can free a permit
 * (a sliding window only frees permits as its oldest entries leave), so a repeat request can be rejected
 * on this server without a round trip: the attack shield.
 *
 * <p>When that time has passed, one caller (the probe) asks the backend and every other caller of the key
 * waits for its answer instead of asking too: if the key is exhausted again, they are rejected here, so an
 * attacked key costs the backend one call per retry-after per server. Bounded: past {@code maxEntries} it
 * drops expired entries (at most once a second), and if still full it stops remembering (and so only stops
 * shielding). Every {@code now} is a reading of the monotonic {@link Ticker} in milliseconds, never the wall
 * clock: a clock stepped back would otherwise keep a key shielded for as long. Thread-safe.
 */
public final class DenyCache {
    private static final Check FREE = new Check(0, null, false);

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private static final long SWEEP_INTERVAL_MILLIS = 1_000;

    private final int maxEntries;
    private volatile long nextSweep = Long.MIN_VALUE;

    /** Denied until {@code until}; while {@code probe} is set, one caller is asking the backend again. */
    private record Entry(long until, CompletableFuture<Void> probe) {
    }

    /**
     * What to do with a request for a key: reject it for {@code deniedMillis}; or wait for {@code pending}
     * (another caller's probe) and then look again; or ask the backend, as the key's probe when
     * {@code probe} (then call {@link #settle} when answered).
     */
    public record Check(long deniedMillis, CompletableFuture<Void> pending, boolean probe) {
    }

    public DenyCache(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    public Check check(String key, long now) {
        while (true) {
            Entry e = entries.get(key);
            if (e == null) return FREE;
            if (e.probe() != null) return new Check(0, e.probe(), false);
            if (e.until() > now) return new Check(e.until() - now, null, false);
            // Expired: the first caller to claim it asks the backend, the others wait for that answer.
            if (entries.replace(key, e, new Entry(e.until(), new CompletableFuture<>()))) return new Check(0, null, true);
        }
    }

    /** Records that the backend will deny the key for {@code millis} from {@code now}. */
    public void deny(String key, long now, long millis) {
        if (millis <= 0) return;
        if (entries.size() >= maxEntries) {
            // A full scan at most once a second: under a flood of distinct keys every request would otherwise
            // scan the whole map on its way to Redis.
            if (now >= nextSweep) {
                nextSweep = now + SWEEP_INTERVAL_MILLIS;
                entries.values().removeIf(e -> e.probe() == null && e.until() <= now);
            }
            if (entries.size() >= maxEntries) return;
        }
        entries.merge(key, new Entry(now + millis, null), (old, neu) -> new Entry(Math.max(old.until(), neu.until()), old.probe()));
    }

    /**
     * Ends this caller's probe of the key (after {@link #deny} if the answer denies it, or after a failure):
     * the callers waiting for it look again.
     */
    public void settle(String key, long now) {
        AtomicReference<CompletableFuture<Void>> probe = new AtomicReference<>();
        entries.computeIfPresent(key, (k, e) -> {
            if (e.probe() == null) return e;
            probe.set(e.probe());
            return e.until() > now ? new Entry(e.until(), null) : null;
        });
        if (probe.get() != null) probe.get().complete(null);
    }

    /** Forgets every key; callers waiting for a probe look again (and find the key free). */
    public void clear() {
        for (String key : entries.keySet()) {
            Entry e = entries.remove(key);
            if (e != null && e.probe() != null) e.probe().complete(null);
        }
    }

    public int size() {
        return entries.size();
    }
}
