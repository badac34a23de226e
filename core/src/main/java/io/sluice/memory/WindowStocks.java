package io.sluice.memory;

import io.sluice.spi.RateOutcome;

import java.util.ArrayList;
import java.util.List;

/**
 * The stocks a window counter lent to servers (prefetches), each under its id with the window it was counted in, and
 * the tombstones of hand-backs that came before their prefetch: what {@code window-stocks.lua} keeps after a window
 * counter's counts, for {@link FixedWindowModel} and {@link SlidingWindowModel}. Times in microseconds. Not
 * thread-safe: its model's caller serialises calls.
 */
final class WindowStocks {
    /**
     * A stock not handed back yet: its id, the index of the window it was counted in, its permits, and until when its
     * hand-back may come (its hold and a grace, after which it counts as used).
     */
    record Lent(String id, double window, double permits, double untilMicros) {
    }

    /** What a prefetch took, the answer of its last decision, and how long (ms) its stock may be handed out. */
    record Taken(long taken, RateOutcome last, long endsInMillis) {
    }

    private record Tombstone(String id, double untilMicros) {
    }

    private final List<Lent> stocks = new ArrayList<>();
    private final List<Tombstone> tombstones = new ArrayList<>();

    /**
     * Forgets, as the script reads its state, the stocks of windows before {@code from} or lapsed by {@code now}, and
     * the tombstones ended by {@code now}.
     */
    void prune(double from, double now) {
        stocks.removeIf(s -> s.window() < from || s.untilMicros() <= now);
        tombstones.removeIf(t -> t.untilMicros() <= now);
    }

    /** Stock {@code id}, {@code permits} counted in {@code window}, lent until {@code untilMicros}. */
    void lend(String id, double window, double permits, double untilMicros) {
        stocks.add(new Lent(id, window, permits, untilMicros));
    }

    /**
     * A hand-back of stock {@code id}: the stock, no longer lent; null when none is lent under it (then a tombstone
     * until {@code lastsMicros} after {@code now}, unless there is one already). Each hand-back acts once.
     */
    Lent handedBack(String id, double lastsMicros, double now) {
        for (int i = 0; i < stocks.size(); i++) {
            if (stocks.get(i).id().equals(id)) return stocks.remove(i);
        }
        if (tombstones.stream().noneMatch(t -> t.id().equals(id))) tombstones.add(new Tombstone(id, now + lastsMicros));
        return null;
    }

    /**
     * Forgets the stocks a server used up ({@code ids}): nothing of them comes back, so no counter changes; an id not
     * lent (any more) is left alone, with no tombstone.
     *
     * @return whether any went
     */
    boolean forgetUsedUp(List<String> ids) {
        boolean any = false;
        for (String id : ids) any |= stocks.removeIf(s -> s.id().equals(id));
        return any;
    }

    /** Whether a prefetch under {@code id} was handed back before it ran (its tombstone then goes). */
    boolean givenUp(String id) {
        return tombstones.removeIf(t -> t.id().equals(id));
    }

    /** Until when the state must live for its tombstones ({@code orLater} when that is later). */
    long idleAt(double orLater) {
        double last = orLater;
        for (Tombstone t : tombstones) last = Math.max(last, t.untilMicros());
        return (long) last;
    }
}
