package io.sluice.memory;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/** Reference model of {@code fixed-window.lua}: a counter per window, windows aligned to multiples of the period. */
public final class FixedWindowModel implements RateModel {
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
        return new RateOutcome(allowed, (long) remaining, reset, retry, 0, over);
    }

    @Override
    public void refund(RateRequest r, long nowMicros) {
        double now = nowMicros;
        double period = r.period().toMillis() * 1000.0;
        double w = RateModel.window(now, period);
        double n = stored && window == w ? count : 0;
        if (n > 0) store(w, Math.max(0, n - r.cost()), (w + 1) * period);
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

    private void store(double w, double n, double finish) {
        stored = true;
        window = w;
        count = n;
        idleAt = (long) finish;
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }
}
