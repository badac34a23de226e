package io.sluice.memory;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * Reference model of {@code fixed-window.lua}: a counter per window, windows aligned to multiples of the period; a
 * prefetch's stock is counted in the window of now and lent under its id until its window ends. An admitted outcome's
 * entry names its window, whose counter alone a refund by it lowers.
 */
public final class FixedWindowModel implements RateModel {
    private final WindowStocks stocks = new WindowStocks();
    private boolean stored;
    private double window;
    private double count;
    private long idleAt;

    @Override
    public RateOutcome consume(RateRequest r, long nowMicros) {
        double now = nowMicros;
        double period = r.period().toMillis() * 1000.0;
        double limit = r.limit();
        double eff = r.effectiveLimit();
        double cost = r.cost();
        double w = RateModel.window(now, period);
        double finish = (w + 1) * period;
        double n = stored && window == w ? count : 0;

        boolean allowed = false;
        long retry = 0;
        if (cost > eff) {
            retry = RateOutcome.NEVER_FITS;
        } else if (n + cost <= eff) {
            allowed = true;
            n = n + cost;
            store(w, n, finish);
        } else {
            retry = RateModel.millis(finish - now);
        }
        double remaining = Math.max(0, limit - n);
        boolean over = allowed && n > limit;
        long reset = n > 0 ? RateModel.millis(finish - now) : 0;
        RateOutcome o = new RateOutcome(allowed, (long) remaining, reset, retry, 0, over);
        return allowed ? o.withEntry(RateModel.windowEntry(w)) : o;
    }

    @Override
    public void refund(RateRequest r, long nowMicros) {
        refund(r, null, nowMicros);
    }

    /** Off the counter of the window {@code entry} names, only while it is the current one (null: the current one). */
    @Override
    public boolean refund(RateRequest r, Entry entry, long nowMicros) {
        double now = nowMicros;
        double period = r.period().toMillis() * 1000.0;
        double w = RateModel.window(now, period);
        double n = stored && window == w ? count : 0;
        boolean counted = entry == null || RateModel.windowOf(entry) == w;
        if (n <= 0 || !counted) return false;
        store(w, Math.max(0, n - r.cost()), (w + 1) * period);
        return true;
    }

    /** The counter goes up by the cost, past the limit if need be, as the script's charge does. */
    @Override
    public void charge(RateRequest r, long nowMicros) {
        double now = nowMicros;
        double period = r.period().toMillis() * 1000.0;
        double w = RateModel.window(now, period);
        double n = stored && window == w ? count : 0;
        store(w, n + r.cost(), (w + 1) * period);
    }

    /**
     * Up to {@code upTo} permits of {@code permit} (cost 1), as many as fit, counted in the window of now and lent under
     * {@code id} for {@code lentMicros}; a tombstone under {@code id} (its hand-back came first) makes it take nothing.
     * The stocks {@code usedUp} (their ids) are forgotten first.
     */
    WindowStocks.Taken prefetch(RateRequest permit, long upTo, String id, long lentMicros, long nowMicros, List<String> usedUp) {
        double now = nowMicros;
        double period = permit.period().toMillis() * 1000.0;
        double w = RateModel.window(now, period);
        double finish = (w + 1) * period;
        double n = stored && window == w ? count : 0;
        stocks.prune(w, now);
        double taken = 0;
        boolean changed = stocks.forgetUsedUp(usedUp);
        if (stocks.givenUp(id)) {
            changed = true;
        } else {
            taken = Math.max(0, Math.min(upTo, permit.effectiveLimit() - n));
            if (taken > 0) {
                n = n + taken;
                stocks.lend(id, w, taken, now + lentMicros);
                changed = true;
            }
        }
        if (changed) store(w, n, finish);
        long retry = taken < upTo ? RateModel.millis(finish - now) : 0;
        long reset = n > 0 ? RateModel.millis(finish - now) : 0;
        RateOutcome last = new RateOutcome(taken > 0, (long) Math.max(0, permit.limit() - n), reset, retry);
        // As the script answers: the window that counted the stock, for a stock-paid permit's give-back.
        if (taken > 0) last = last.withEntry(RateModel.windowEntry(w));
        return new WindowStocks.Taken((long) taken, last, (long) Math.floor((finish - now) / 1000));
    }

    /**
     * Stock {@code id} handed back: up to {@code unused} of its permits off the counter, while its window is the
     * current one; a tombstone for {@code tombstoneMicros} when none is lent under it.
     *
     * @return how much the key's remaining rose (0 when the stock's window has ended)
     */
    long handBack(RateRequest permit, String id, long unused, long tombstoneMicros, long nowMicros) {
        double now = nowMicros;
        double period = permit.period().toMillis() * 1000.0;
        double w = RateModel.window(now, period);
        double n = stored && window == w ? count : 0;
        double before = Math.max(0, permit.limit() - n);
        stocks.prune(w, now);
        WindowStocks.Lent s = stocks.handedBack(id, tombstoneMicros, now);
        if (s != null && s.window() == w) n = Math.max(0, n - Math.min(unused, s.permits()));
        store(w, n, (w + 1) * period);
        return (long) (Math.max(0, permit.limit() - n) - before);
    }

    private void store(double w, double n, double finish) {
        stored = true;
        window = w;
        count = n;
        idleAt = stocks.idleAt(finish);
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }
}
