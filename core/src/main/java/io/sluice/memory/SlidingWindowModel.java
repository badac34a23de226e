package io.sluice.memory;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/**
 * Reference model of {@code sliding-window.lua}: the counts of the current and the previous fixed window;
 * the estimate is {@code previous x (its overlap with the rolling window) + current} (Cloudflare's
 * approximation). The contract's example: 9 in the previous window, 5 in this one, a quarter into it:
 * 9 x 0.75 + 5 = 14.75 of 10, so the next request is rejected.
 */
public final class SlidingWindowModel implements RateModel {
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
        return new RateOutcome(allowed, (long) remaining, reset, retry, 0, over);
    }

    @Override
    public void refund(RateRequest r, long nowMicros) {
        if (!stored) return;
        Window s = load(r, nowMicros);
        s.current = Math.max(0, s.current - r.cost());
        store(s);
    }

    /** The current window's counter goes up by the cost, past the limit if need be, as the script's charge does. */
    @Override
    public void charge(RateRequest r, long nowMicros) {
        Window s = load(r, nowMicros);
        s.current = s.current + r.cost();
        store(s);
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
        idleAt = (long) ((s.w + 2) * s.period);
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
