package io.sluice.memory;

import io.sluice.spi.Entry;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;

/**
 * One {@code sliding-log} key's entries in the order of their time, as the scripts' sorted set keeps them (a stock's
 * counting from its hold's end), and what a decision, a give-back and a stock do to them. Times in milliseconds. Not
 * thread-safe: {@link SlidingLogs} hands it out under its lock.
 */
final class SlidingLog {
    /** A refund without an entry id looks this far back for the entry to remove, as refund-log.lua does. */
    private static final int REFUND_SCAN = 64;
    /** How a request's log entry id starts (a stock's is a UUID's hex digits): what a refund may remove. */
    static final String REQUEST_ENTRY = "r:";

    /**
     * A log entry as the log keeps it: when it counts from, its permits, and its id (a request's, by which it is
     * refunded, or a stock's).
     */
    private record Logged(long at, long permits, String id) {
    }

    private final List<Logged> entries = new ArrayList<>();
    private long used;
    private long lastTouched;
    /** The latest time an entry counts from: the log lives until that has left the window too. */
    private long latest;
    /** Dropped by the sweep or forgotten: a caller that found it makes a new one. */
    boolean dead;

    private void add(Logged e) {
        int at = entries.size();
        while (at > 0 && entries.get(at - 1).at() > e.at()) at--;
        entries.add(at, e);
        used += e.permits();
        latest = Math.max(latest, e.at());
    }

    /** Whether nothing has touched the log for {@code interval} at {@code now}, and no entry counts any more. */
    boolean idle(long now, long interval) {
        return now - Math.max(lastTouched, latest) >= interval;
    }

    /** Entries that have left the window at {@code now} leave the log. */
    void expire(long now, long interval) {
        lastTouched = now;
        int expired = 0;
        while (expired < entries.size() && entries.get(expired).at() <= now - interval) {
            used -= entries.get(expired++).permits();
        }
        entries.subList(0, expired).clear();
    }

    /** {@code r} decided against the log; admitted, its entry is logged under {@code id}, which the outcome names. */
    RateOutcome consume(RateRequest r, long now, long interval, String id) {
        expire(now, interval);
        long free = r.limit() - used;
        boolean allowed = free >= r.cost();
        long wait = 0;
        if (allowed) {
            add(new Logged(now, r.cost(), id));
            free -= r.cost();
        } else {
            long needed = r.cost() - free;
            wait = interval;
            for (Logged e : entries) {
                needed -= e.permits();
                if (needed <= 0) {
                    wait = interval - (now - e.at());
                    break;
                }
            }
        }
        // Below 0 after a lowered limit: none left until the usage is under it.
        RateOutcome o = new RateOutcome(allowed, Math.max(0, free), resetMillis(now, interval), Math.max(0, wait));
        return allowed ? o.withEntry(new Entry.LogEntry(id)) : o;
    }

    /** How long until the oldest entry leaves the window at {@code now}; 0 for an empty log. */
    long resetMillis(long now, long interval) {
        return entries.isEmpty() ? 0 : Math.max(0, interval - (now - entries.get(0).at()));
    }

    /** The permits {@code limit} leaves free, never below 0. */
    long left(long limit) {
        return Math.max(0, limit - used);
    }

    /**
     * {@code cost} permits given back, as refund-log.lua does: a stock's use, the request's own entry, or without
     * {@code entry} the newest request entry of exactly that many permits.
     */
    void refund(long cost, Entry entry) {
        if (entry instanceof Entry.StockUse use) {
            refundUse(cost, use);
            return;
        }
        Entry.LogEntry own = Entry.as(Entry.LogEntry.class, entry);
        // As the script does: the entry of that id, or without one the newest request entry of exactly that many
        // permits, leaves the log.
        int scanned = 0;
        for (ListIterator<Logged> it = entries.listIterator(entries.size());
             it.hasPrevious() && (own != null || scanned++ < REFUND_SCAN); ) {
            Logged e = it.previous();
            boolean match = own != null ? own.id().equals(e.id()) : e.id().startsWith(REQUEST_ENTRY);
            if (match && e.permits() == cost) {
                it.remove();
                used -= e.permits();
                break;
            }
        }
    }

    /**
     * A stock's use given back, as refund-log.lua does: {@code cost} permits off the stock's entry of the largest time
     * before its hold's end up to the use's ({@code stockId:ms}, the stock's id itself being 0), which holds the use or
     * the one it merged into.
     */
    private void refundUse(long cost, Entry.StockUse use) {
        String stock = use.stockId();
        long usedBefore = use.beforeEndMillis();
        int found = -1;
        long foundBefore = -1;
        for (int i = 0; i < entries.size(); i++) {
            String id = entries.get(i).id();
            long before = id.equals(stock) ? 0 : id.startsWith(stock + ":") ? Long.parseLong(id.substring(stock.length() + 1)) : -1;
            if (before >= 0 && before <= usedBefore && before > foundBefore) {
                found = i;
                foundBefore = before;
            }
        }
        if (found < 0) return;
        Logged e = entries.get(found);
        long off = Math.min(cost, e.permits());
        if (e.permits() > off) entries.set(found, new Logged(e.at(), e.permits() - off, e.id()));
        else entries.remove(found);
        used -= off;
    }

    /**
     * A stock {@code id} lent: as many permits as {@code limit} leaves free, up to {@code ahead}, in one entry that
     * counts from {@code holdEnd}.
     *
     * @return the permits taken
     */
    long lend(String id, long ahead, long limit, long holdEnd) {
        long taken = Math.max(0, Math.min(ahead, limit - used));
        if (taken > 0) add(new Logged(holdEnd, taken, id));
        return taken;
    }

    /** Stock {@code id} of {@code lent} permits handed back: its entry loses the unused permits (and leaves when none is left). */
    void handBack(String id, long lent, long unused) {
        for (ListIterator<Logged> it = entries.listIterator(); it.hasNext(); ) {
            Logged e = it.next();
            if (!id.equals(e.id()) || e.permits() != lent) continue;
            if (e.permits() > unused) it.set(new Logged(e.at(), e.permits() - unused, id));
            else it.remove();
            used -= unused;
            break;
        }
    }

    /** As above, its used permits logged again at their uses, as return-log.lua does. */
    void handBack(String id, long lent, long unused, List<PrefetchUse> uses) {
        for (ListIterator<Logged> it = entries.listIterator(); it.hasNext(); ) {
            Logged e = it.next();
            if (!id.equals(e.id()) || e.permits() != lent) continue;
            it.remove();
            used -= e.permits();
            long kept = e.permits() - unused;
            // Uses at one time are one entry, named by that time (a give-back of a use finds it).
            Map<Long, Long> usedAt = new LinkedHashMap<>();
            for (PrefetchUse u : uses) {
                long n = Math.min(u.permits(), kept);
                if (n <= 0 || u.beforeEndMillis() <= 0) continue;
                usedAt.merge(u.beforeEndMillis(), n, Long::sum);
                kept -= n;
            }
            usedAt.forEach((before, n) -> add(new Logged(e.at() - before, n, id + ":" + before)));
            if (kept > 0) add(new Logged(e.at(), kept, id));
            break;
        }
    }
}
