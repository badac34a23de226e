package io.sluice.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers, per rate key, until when the backend said no. Within that time nothing can free a permit
 * (a sliding window only frees permits as its oldest entries leave), so a repeat request can be
 * rejected on this server without a round trip: the attack shield. Bounded: past {@code maxEntries} it
 * drops expired entries, and if still full it stops remembering (and so only stops shielding).
 * Thread-safe.
 */
public final class DenyCache {
    private final Map<String, Long> deniedUntil = new ConcurrentHashMap<>();
    private final int maxEntries;

    public DenyCache(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    /** Milliseconds the key stays denied from {@code now}, or 0 when it is not known to be denied. */
    public long remaining(String key, long now) {
        Long until = deniedUntil.get(key);
        if (until == null) return 0;
        if (until <= now) {
            deniedUntil.remove(key, until);
            return 0;
        }
        return until - now;
    }

    /** Records that the backend denied the key for {@code millis} from {@code now}. */
    public void deny(String key, long now, long millis) {
        if (millis <= 0) return;
        if (deniedUntil.size() >= maxEntries) {
            deniedUntil.values().removeIf(until -> until <= now);
            if (deniedUntil.size() >= maxEntries) return;
        }
        deniedUntil.merge(key, now + millis, Math::max);
    }

    public int size() {
        return deniedUntil.size();
    }
}
