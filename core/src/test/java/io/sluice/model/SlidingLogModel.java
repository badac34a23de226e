package io.sluice.model;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * The contract's {@code sliding-log} for one key: every permit counts for one period from when it was taken, and
 * a changed limit applies to what is counted now. Times in milliseconds.
 */
final class SlidingLogModel {
    /** The permits one request took, and when: what a refund gives back (compared by identity, not value). */
    static final class Entry {
        private final long at;
        private final long permits;

        private Entry(long at, long permits) {
            this.at = at;
            this.permits = permits;
        }

        long at() {
            return at;
        }

        long permits() {
            return permits;
        }
    }

    private final Deque<Entry> entries = new ArrayDeque<>();
    private long used;

    /**
     * Takes {@code cost} when it fits under {@code cap}; {@code used} after the call is in {@link #used}.
     *
     * @return the request's entry, which {@link #refund} gives back; null when rejected
     */
    Entry consume(long cost, long cap, long periodMillis, long now) {
        expire(periodMillis, now);
        if (used + cost > cap) return null;
        Entry e = new Entry(now, cost);
        entries.addLast(e);
        used += cost;
        return e;
    }

    /**
     * Gives back the request's own entry, as the contract's Evaluation has it: the request never came. Later requests'
     * entries stay, however much later the refund comes; an entry that has left the window gives nothing back (its
     * permits are free already), nor does one of a log since lost.
     */
    void refund(Entry entry) {
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            if (it.next() == entry) {
                it.remove();
                used -= entry.permits();
                return;
            }
        }
    }

    long used(long periodMillis, long now) {
        expire(periodMillis, now);
        return used;
    }

    private void expire(long periodMillis, long now) {
        while (!entries.isEmpty() && entries.peekFirst().at() <= now - periodMillis) used -= entries.pollFirst().permits();
    }
}
