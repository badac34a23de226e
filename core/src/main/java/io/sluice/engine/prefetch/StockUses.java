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

    /**
     * {@code n} permits used at {@code usedAt} put back (their request gave them back): taken off the use that holds
     * them, the first kept at or after that instant (a merge moves a use later, never earlier), so that a later
     * request's use keeps its own instant.
     */
    void remove(long usedAt, long n) {
        int i = 0;
        while (i < size && at[i] < usedAt) i++;
        while (n > 0 && i < size) {
            long off = Math.min(n, permits[i]);
            permits[i] -= off;
            n -= off;
            if (permits[i] == 0) {
                System.arraycopy(at, i + 1, at, i, size - i - 1);
                System.arraycopy(permits, i + 1, permits, i, size - i - 1);
                size--;
            } else {
                i++;
            }
        }
        // Not found where it was used (never, while each use is put back once): off the latest, as it was one of them.
        remove(n);
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
