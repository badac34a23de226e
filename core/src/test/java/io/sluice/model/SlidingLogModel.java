package io.sluice.model;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * The contract's {@code sliding-log} for one key: every permit counts for one period from when it was taken, and
 * a changed limit applies to what is counted now. Times in milliseconds.
 */
final class SlidingLogModel {
    private record Entry(long at, long permits) {
    }

    private final Deque<Entry> entries = new ArrayDeque<>();
    private long used;

    /** Takes {@code cost} when it fits under {@code cap}; {@code used} after the call is in {@link #used()}. */
    boolean consume(long cost, long cap, long periodMillis, long now) {
        expire(periodMillis, now);
        if (used + cost > cap) return false;
        entries.addLast(new Entry(now, cost));
        used += cost;
        return true;
    }

    /** Gives back the newest entry of exactly {@code cost} permits (a rejected request's, taken just before). */
    void refund(long cost) {
        for (Iterator<Entry> it = entries.descendingIterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.permits() == cost) {
                it.remove();
                used -= cost;
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
