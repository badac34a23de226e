package io.sluice.spi;

import java.util.Objects;

/**
 * Where a backend keeps the permits one admitted rate decision took ({@link RateOutcome#entry()}): what a give-back
 * names ({@link Refunding#refund(RateRequest, Entry)}) so that it frees this request's permits and no other's. One kind
 * per way an algorithm keeps permits; a backend reads only the kinds it answered, for the algorithm it answered them
 * for. Immutable.
 */
public sealed interface Entry permits Entry.LogEntry, Entry.StockUse, Entry.WindowIndex, Entry.SlotEnd {

    /**
     * A {@code sliding-log}'s entry of the request: the id the log keeps its permits under.
     *
     * @param id the entry's id in the log
     */
    record LogEntry(String id) implements Entry {
        /**
         * Checks the id.
         *
         * @param id the entry's id in the log
         */
        public LogEntry {
            Objects.requireNonNull(id, "id");
        }
    }

    /**
     * A {@code sliding-log}'s permits a server paid from a prefetched stock ({@link Prefetch.Receipt#use}): the
     * stock's id and how long before the stock's hold ended they were used. Once the stock is back the log keeps them
     * at the time of that use ({@link PrefetchUse}), and a give-back naming this takes them off that use.
     *
     * @param stockId         the stock's id ({@link Prefetch.Receipt#stockId()})
     * @param beforeEndMillis how long before the hold's end the permits were used, at least 0
     */
    record StockUse(String stockId, long beforeEndMillis) implements Entry {
        /**
         * Checks the use.
         *
         * @param stockId         the stock's id
         * @param beforeEndMillis how long before the hold's end
         */
        public StockUse {
            Objects.requireNonNull(stockId, "stockId");
            if (beforeEndMillis < 0) throw new IllegalArgumentException("a use is within the hold: " + beforeEndMillis);
        }
    }

    /**
     * A {@code fixed-window}'s or {@code sliding-window}'s window that counted the permits: a give-back comes off that
     * window's counter while it still counts, never off a later window's.
     *
     * @param index the window's index: the backend's time divided by the period, rounded down
     */
    record WindowIndex(long index) implements Entry {
    }

    /**
     * A {@code leaky-bucket}'s slot: its end, by which a slot taken after the engine stopped waiting for it is given
     * back while it is still the last one scheduled.
     *
     * @param endMicros the end of the slot taken (microseconds, the backend's time)
     */
    record SlotEnd(long endMicros) implements Entry {
    }

    /**
     * {@code entry} as the kind {@code kind} a backend reads for an algorithm.
     *
     * @param kind  the kind the algorithm's permits are kept under
     * @param entry an entry, or null when none is known
     * @param <E>   the kind
     * @return the entry, or null when it is null
     * @throws IllegalArgumentException for an entry of another kind: an answer of another algorithm's
     */
    static <E extends Entry> E as(Class<E> kind, Entry entry) {
        if (entry == null || kind.isInstance(entry)) return kind.cast(entry);
        throw new IllegalArgumentException("not a " + kind.getSimpleName() + ": " + entry);
    }
}
