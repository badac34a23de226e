package io.sluice.memory;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * Reference model of {@code sliding-window.lua}: the counts of the current and the previous fixed window;
 * the estimate is {@code previous x (its overlap with the rolling window) + current} (Cloudflare's
 * approximation). The contract's example: 9 in the previous window, 5 in this one, a quarter into it:
 * 9 x 0.75 + 5 = 14.75 of 10, so the next request is rejected. A prefetch's stock is counted in the window of now
 * and lent under its id; its hand-back comes off that window's counter, the current or the previous one, and so does a
 * refund by the entry an admitted outcome carries (its window's index).
 */
public final class SlidingWindowModel implements RateModel {
    private final WindowStocks stocks = new WindowStocks();
    private boolean stored;
    private double window;
    private double storedCurrent;
    private double storedPrevious;
    private long idleAt;

    @Override
    public RateOutcome consume(RateRequest r, long nowMicros) {
        Window s = load(r, nowMicros);
        double eff = r.effectiveLimit();
        double limit = r.limit();
        double cost = r.cost();
        boolean allowed = false;
        long retry = 0;
        if (cost > eff) {
            retry = RateOutcome.NEVER_FITS;
        } else if (s.previous * (s.period - s.elapsed) / s.period + s.current + cost <= eff) {
            allowed = true;
            s.current = s.current + cost;
            store(s);
        } else {
            retry = RateModel.millis(s.wait(cost, eff));
        }
        double estimate = s.previous * (s.period - s.elapsed) / s.period + s.current;
        double remaining = Math.max(0, Math.floor(limit - estimate));
        boolean over = allowed && estimate > limit;
        long reset = s.current > 0 || s.previous > 0 ? RateModel.millis(s.wait(remaining + 1, limit)) : 0;
        RateOutcome o = new RateOutcome(allowed, (long) remaining, reset, retry, 0, over);
        return allowed ? o.withEntry(RateModel.windowEntry(s.w)) : o;
    }

    @Override
    public void refund(RateRequest r, long nowMicros) {
        refund(r, null, nowMicros);
    }

    /**
     * Off the counter of the window {@code entry} names: the current one (null: not known, the current one too), or the
     * previous one, which still weighs in; an older one counts nothing any more.
     */
    @Override
    public boolean refund(RateRequest r, Entry entry, long nowMicros) {
        return refunded(r, entry, nowMicros) >= 0;
    }

    /**
     * As {@link #refund(RateRequest, Entry, long)}: how much the key's remaining rose, which for the previous window is
     * its weight's share of the cost, rounded as the remaining is (often less than the cost, maybe nothing).
     */
    @Override
    public long refundCredited(RateRequest r, Entry entry, long nowMicros) {
        return Math.max(0, refunded(r, entry, nowMicros));
    }

    /** The refund: how much the key's remaining rose; -1 when no counter got permits back. */
    private long refunded(RateRequest r, Entry entry, long nowMicros) {
        if (!stored) return -1;
        Window s = load(r, nowMicros);
        double counted = entry == null ? s.w : RateModel.windowOf(entry);
        double before = remaining(s, r.limit());
        boolean back;
        if (counted == s.w) {
            back = s.current > 0;
            s.current = Math.max(0, s.current - r.cost());
        } else if (counted == s.w - 1) {
            back = s.previous > 0;
            s.previous = Math.max(0, s.previous - r.cost());
        } else {
            return -1;
        }
        store(s);
        return back ? (long) (remaining(s, r.limit()) - before) : -1;
    }

    private static double remaining(Window s, double limit) {
        return Math.max(0, Math.floor(limit - (s.previous * (s.period - s.elapsed) / s.period + s.current)));
    }

    /** The current window's counter goes up by the cost, past the limit if need be, as the script's charge does. */
    @Override
    public void charge(RateRequest r, long nowMicros) {
        Window s = load(r, nowMicros);
        s.current = s.current + r.cost();
        store(s);
    }

    /**
     * Up to {@code upTo} permits of {@code permit} (cost 1), as many as fit, counted in the window of now and lent under
     * {@code id} for {@code lentMicros}; a tombstone under {@code id} (its hand-back came first) makes it take nothing. The stock may be handed
     * out until its window ends, and no longer than the reset (when the key's next permit frees). The stocks
     * {@code usedUp} (their ids) are forgotten first.
     */
    WindowStocks.Taken prefetch(RateRequest permit, long upTo, String id, long lentMicros, long nowMicros, List<String> usedUp) {
        Window s = load(permit, nowMicros);
        stocks.prune(s.w - 1, s.now);
        double eff = permit.effectiveLimit();
        double limit = permit.limit();
        double taken = 0;
        boolean changed = stocks.forgetUsedUp(usedUp);
        if (stocks.givenUp(id)) {
            changed = true;
        } else {
            taken = Math.max(0, Math.min(upTo, Math.floor(eff - (s.previous * (s.period - s.elapsed) / s.period + s.current))));
            if (taken > 0) {
                s.current = s.current + taken;
                stocks.lend(id, s.w, taken, s.now + lentMicros);
                changed = true;
            }
        }
        if (changed) store(s);
        long retry = taken < upTo ? RateModel.millis(s.wait(1, eff)) : 0;
        double estimate = s.previous * (s.period - s.elapsed) / s.period + s.current;
        double remaining = Math.max(0, Math.floor(limit - estimate));
        long reset = s.current > 0 || s.previous > 0 ? RateModel.millis(s.wait(remaining + 1, limit)) : 0;
        long lasts = (long) Math.floor(((s.w + 1) * s.period - s.now) / 1000);
        if (reset > 0 && reset < lasts) lasts = reset;
        RateOutcome last = new RateOutcome(taken > 0, (long) remaining, reset, retry);
        // As the script answers: the window that counted the stock, for a stock-paid permit's give-back.
        return new WindowStocks.Taken((long) taken, taken > 0 ? last.withEntry(RateModel.windowEntry(s.w)) : last, lasts);
    }

    /**
     * Stock {@code id} handed back: up to {@code unused} of its permits off the counter of its window, the current or
     * the previous one; a tombstone for {@code tombstoneMicros} when none is lent under it.
     */
    long handBack(RateRequest permit, String id, long unused, long tombstoneMicros, long nowMicros) {
        Window s = load(permit, nowMicros);
        double before = remaining(s, permit.limit());
        stocks.prune(s.w - 1, s.now);
        WindowStocks.Lent lent = stocks.handedBack(id, tombstoneMicros, s.now);
        if (lent != null && lent.window() == s.w) {
            s.current = Math.max(0, s.current - Math.min(unused, lent.permits()));
        } else if (lent != null && lent.window() == s.w - 1) {
            s.previous = Math.max(0, s.previous - Math.min(unused, lent.permits()));
        }
        store(s);
        return (long) (remaining(s, permit.limit()) - before);
    }

    private Window load(RateRequest r, long nowMicros) {
        Window s = new Window();
        s.now = nowMicros;
        s.period = r.period().toMillis() * 1000.0;
        s.w = RateModel.window(s.now, s.period);
        s.elapsed = s.now - s.w * s.period;
        if (stored) {
            if (window == s.w) {
                s.current = storedCurrent;
                s.previous = storedPrevious;
            } else if (window == s.w - 1) {
                s.previous = storedCurrent;
            }
        }
        return s;
    }

    private void store(Window s) {
        stored = true;
        window = s.w;
        storedCurrent = s.current;
        storedPrevious = s.previous;
        idleAt = stocks.idleAt((s.w + 2) * s.period);
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }

    /** The two windows as seen at one instant. */
    private static final class Window {
        double now;
        double period;
        double w;
        double elapsed;
        double current;
        double previous;

        /** Microseconds until {@code need} more permits fit under {@code cap}, the previous window sliding out. */
        double wait(double need, double cap) {
            if (need > cap) return (w + 2) * period - now;
            if (previous * (period - elapsed) / period + current + need <= cap) return 0;
            double a = cap - current - need;
            if (a >= 0) return period - a * period / previous - elapsed;
            double b = cap - need;
            if (current <= b) return period - elapsed;
            return period - elapsed + period - b * period / current;
        }
    }
}
