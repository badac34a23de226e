package io.sluice.memory;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The {@link SlidingLog sliding logs} of {@link InMemoryBackend} by key and period, each used under its own lock and
 * dropped by the sweep once idle, and the log's decisions and give-backs. Thread-safe.
 */
final class SlidingLogs {
    private final Map<String, SlidingLog> logs = new ConcurrentHashMap<>();
    /** The last request's log entry number: each admitted request's entry has an id of its own. */
    private final AtomicLong lastEntry = new AtomicLong();

    /**
     * {@code body} applied to the log of {@code r}'s key and period, under its lock; one the sweep dropped meanwhile is
     * made again.
     */
    <T> T under(RateRequest r, Function<SlidingLog, T> body) {
        while (true) {
            // The log keeps what was used, not what is left: a changed limit (a reload) applies to the usage at once.
            SlidingLog log = logs.computeIfAbsent(name(r), k -> new SlidingLog());
            synchronized (log) {
                if (!log.dead) return body.apply(log);
            }
        }
    }

    /** {@code body} applied to the log of {@code r}'s key and period under its lock, when there is one. */
    void ifHeld(RateRequest r, Consumer<SlidingLog> body) {
        SlidingLog log = logs.get(name(r));
        if (log == null) return;
        synchronized (log) {
            body.accept(log);
        }
    }

    /** {@code r} decided against its log, soft and elastic rules answered at their nominal limit. */
    RateOutcome decide(RateRequest r, long now) {
        if (r.cost() > r.effectiveLimit()) {
            // Rejected, so it takes nothing: it only reads what the log holds.
            RateOutcome o = consume(new RateRequest(r.key(), r.effectiveLimit(), r.period(), r.effectiveLimit() + 1), now);
            long extra = r.effectiveLimit() - r.limit();
            return new RateOutcome(false, Math.max(0, o.remaining() - extra), o.resetMillis(), RateOutcome.NEVER_FITS, 0, false);
        }
        if (!r.overage()) return consume(r, now);
        // Soft or elastic: the log counts up to the effective limit; the answer speaks of the nominal one.
        long extra = r.effectiveLimit() - r.limit();
        RateOutcome o = consume(new RateRequest(r.key(), r.effectiveLimit(), r.period(), r.cost()), now);
        return new RateOutcome(o.allowed(), Math.max(0, o.remaining() - extra), o.resetMillis(), o.retryAfterMillis(), 0,
                o.allowed() && o.remaining() < extra, o.entry());
    }

    private RateOutcome consume(RateRequest r, long now) {
        long interval = r.period().toMillis();
        return under(r, log -> log.consume(r, now, interval, nextEntry()));
    }

    /** A log gives back the entry of that id, as refund-log.lua does; without one, its newest request entry of that cost. */
    void refund(RateRequest r, Entry entry) {
        ifHeld(r, log -> log.refund(r.cost(), entry));
    }

    /** The id of a request's log entry, unique in this backend. */
    String nextEntry() {
        return SlidingLog.REQUEST_ENTRY + lastEntry.incrementAndGet();
    }

    /** Drops the log of {@code r}'s key and period: a caller holding it makes a new one. */
    void forget(RateRequest r) {
        SlidingLog log = logs.remove(name(r));
        if (log == null) return;
        synchronized (log) {
            log.dead = true;
        }
    }

    /** Drops the logs idle at {@code now}. */
    void sweep(long now) {
        for (Iterator<Map.Entry<String, SlidingLog>> it = logs.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, SlidingLog> e = it.next();
            long interval = Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf('|') + 1));
            SlidingLog log = e.getValue();
            synchronized (log) {
                if (log.idle(now, interval)) {
                    log.dead = true;
                    it.remove();
                }
            }
        }
    }

    int size() {
        return logs.size();
    }

    void clear() {
        logs.clear();
    }

    private static String name(RateRequest r) {
        return r.key() + "|" + r.period().toMillis();
    }
}
