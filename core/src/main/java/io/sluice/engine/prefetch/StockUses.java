package io.sluice.engine.prefetch;

import io.sluice.spi.PrefetchUse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * When a stock's permits were used, by instant of this server's ticker, so that its hand-back lets a log count each
 * from its use rather than from the hold's end ({@link PrefetchUse}). At most {@link #MAX_INSTANTS} instants are kept:
 * past that, neighbours merge at the later one, so a permit may count from a little after its use (longer in the
 * window, never shorter). Guarded by the lock of the slot that holds the stock.
 */
final class StockUses {
    /** Instants kept at most: what one hand-back tells the backend. */
    static final int MAX_INSTANTS = 64;
    /** Instants a stock makes room for at first (most stocks see few). */
    private static final int FIRST_ROOM = 4;

    private long[] at = new long[FIRST_ROOM];
    private long[] permits = new long[FIRST_ROOM];
    private int size;

    /** {@code n} permits used at {@code now}. */
    void add(long now, long n) {
        if (size > 0 && at[size - 1] >= now) {
            // The same instant (the ticker never goes back): one use.
            permits[size - 1] += n;
            return;
        }
        if (size == MAX_INSTANTS) mergeNeighbours();
        if (size == at.length) {
            at = Arrays.copyOf(at, Math.min(MAX_INSTANTS, size * 2));
            permits = Arrays.copyOf(permits, at.length);
        }
        at[size] = now;
        permits[size] = n;
        size++;
    }

    /** {@code n} permits put back (a request another rule rejected): taken off the latest uses, as it was one of them. */
    void remove(long n) {
        while (n > 0 && size > 0) {
            long off = Math.min(n, permits[size - 1]);
            permits[size - 1] -= off;
            n -= off;
            if (permits[size - 1] == 0) size--;
        }
    }

    /** Halves the instants: each pair becomes one at its later instant. */
    private void mergeNeighbours() {
        int kept = 0;
        for (int i = 0; i < size; i += 2) {
            int later = Math.min(i + 1, size - 1);
            at[kept] = at[later];
            permits[kept] = later == i ? permits[i] : permits[i] + permits[later];
            kept++;
        }
        size = kept;
    }

    /**
     * The uses, oldest first, as how long before {@code end} (the hold's end) each was; forgotten here, since a stock's
     * hand-back tells them once.
     */
    List<PrefetchUse> drain(long end) {
        List<PrefetchUse> uses = new ArrayList<>(size);
        for (int i = 0; i < size; i++) uses.add(new PrefetchUse(permits[i], Math.max(0, end - at[i])));
        size = 0;
        return uses;
    }
}
