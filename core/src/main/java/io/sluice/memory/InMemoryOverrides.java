package io.sluice.memory;

import io.sluice.spi.Overriding;
import io.sluice.spi.RequestRefusedException;
import io.sluice.spi.StoredOverride;
import io.sluice.spi.StoredOverrides;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The overrides of {@link InMemoryBackend}, per key prefix, as {@code overrides-put.lua} keeps them in Redis: ended
 * ones forgotten on each put, at most {@link Overriding#MAX_OVERRIDES}, a version changed by every write.
 * Thread-safe.
 */
final class InMemoryOverrides {
    private static final class Stored {
        final Map<String, StoredOverride> byField = new HashMap<>();
        long version;
    }

    private final Map<String, Stored> byPrefix = new HashMap<>();

    synchronized CompletionStage<Void> put(String prefix, StoredOverride o, long nowMillis) {
        Stored s = byPrefix.computeIfAbsent(prefix, p -> new Stored());
        s.byField.values().removeIf(e -> e.untilMillis() <= nowMillis);
        String field = field(o.rule(), o.hashedKey());
        if (!s.byField.containsKey(field) && s.byField.size() >= Overriding.MAX_OVERRIDES) {
            return CompletableFuture.failedFuture(new RequestRefusedException(
                    "overrides: " + Overriding.MAX_OVERRIDES + " in effect already"));
        }
        s.byField.put(field, o);
        s.version++;
        return CompletableFuture.completedFuture(null);
    }

    synchronized CompletionStage<Boolean> remove(String prefix, String rule, String hashedKey) {
        Stored s = byPrefix.get(prefix);
        boolean removed = s != null && s.byField.remove(field(rule, hashedKey)) != null;
        if (removed) s.version++;
        return CompletableFuture.completedFuture(removed);
    }

    synchronized CompletionStage<Long> version(String prefix) {
        Stored s = byPrefix.get(prefix);
        return CompletableFuture.completedFuture(s == null ? 0L : s.version);
    }

    synchronized CompletionStage<StoredOverrides> all(String prefix) {
        Stored s = byPrefix.get(prefix);
        if (s == null) return CompletableFuture.completedFuture(StoredOverrides.NONE);
        return CompletableFuture.completedFuture(new StoredOverrides(s.version, s.byField.values().stream().toList()));
    }

    private static String field(String rule, String hashedKey) {
        return rule + ":" + hashedKey;
    }
}
