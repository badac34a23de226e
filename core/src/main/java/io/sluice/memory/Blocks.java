package io.sluice.memory;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The keys a rule's {@code block} holds rejected, until when, as {@code block.lua} keeps them in Redis: a decision of
 * a blocking request checks the block, decides, and starts the block on a rejection, in one step. Thread-safe.
 */
final class Blocks {
    /** Key to the instant (ms) its block ends. */
    private final Map<String, Long> until = new HashMap<>();

    /** The outcome of a request of a blocked key: rejected, nothing left, free again when the block ends. */
    static RateOutcome blocked(long millisLeft) {
        return new RateOutcome(false, 0, millisLeft, millisLeft);
    }

    /** {@code decision} of blocking request {@code r} at {@code now}, unless its key is blocked; a rejection blocks it. */
    synchronized RateOutcome decide(RateRequest r, long now, Supplier<RateOutcome> decision) {
        long left = left(r.key(), now);
        if (left > 0) return blocked(left);
        RateOutcome o = decision.get();
        if (o.allowed()) return o;
        until.put(r.key(), now + r.blockMillis());
        return blocked(r.blockMillis());
    }

    /** The time the key's block has left at {@code now}, 0 when it is not blocked. */
    synchronized long left(String key, long now) {
        Long end = until.get(key);
        if (end == null) return 0;
        if (end > now) return end - now;
        until.remove(key);
        return 0;
    }

    /** Lifts the key's block. */
    synchronized void lift(String key) {
        until.remove(key);
    }

    /** Drops the blocks that have ended. */
    synchronized void sweep(long now) {
        until.values().removeIf(end -> end <= now);
    }

    synchronized int size() {
        return until.size();
    }

    synchronized void clear() {
        until.clear();
    }
}
