package io.sluice.memory;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/**
 * Reference model of {@code leaky-bucket.lua}: requests leave at a constant pace, one every
 * {@code period / limit}. The state is the next free slot; a request takes the next slot when it is at most
 * {@code queue} intervals away (and must wait for it: the outcome's delay), else it is rejected with the
 * time until one is.
 */
public final class LeakyBucketModel implements RateModel {
    private boolean stored;
    private double tat;
    private double storedLimit;
    private long idleAt;

    @Override
    public RateOutcome consume(RateRequest r, long nowMicros) {
        double now = nowMicros;
        double eff = r.effectiveLimit();
        double queue = r.queue();
        double cost = r.cost();
        double interval = r.period().toMillis() * 1000.0 / eff;
        double room = queue * interval;
        double t = now;
        boolean rescaled = false;
        if (stored) {
            t = tat;
            if (storedLimit != eff && t > now) {
                t = Math.ceil(now + (t - now) * storedLimit / eff);
                rescaled = true;
            }
        }
        double slot = Math.max(t, now);
        double wait = slot - now;

        boolean allowed = false;
        long retry = 0;
        long delay = 0;
        double tatF = t;
        if (cost <= eff && wait <= room) {
            allowed = true;
            delay = RateModel.millis(wait);
            tatF = Math.ceil(slot + cost * interval);
            stored = true;
            tat = tatF;
            storedLimit = eff;
            idleAt = (long) tatF;
        } else {
            retry = cost > eff ? RateOutcome.NEVER_FITS : RateModel.millis(wait - room);
            if (rescaled) {
                // A rescaled state is stored at once, even by a rejection, as the script does.
                tat = t;
                storedLimit = eff;
                idleAt = (long) t;
            }
        }
        double d = tatF - now;
        double remaining = 0;
        if (d <= 0) remaining = queue + 1;
        else if (d <= room) remaining = Math.floor((room - d) / interval) + 1;
        long reset = d > 0 ? RateModel.millis(d - room + remaining * interval) : 0;
        RateOutcome outcome = new RateOutcome(allowed, (long) remaining, reset, retry, delay, false);
        // The end of the slot taken, as leaky-bucket.lua names it (the entry a late answer's slot goes back by).
        return allowed ? outcome.withEntry(new Entry.SlotEnd((long) tatF)) : outcome;
    }

    /** A leaky bucket's slots are not handed back: elastic throttling is refused for it at parse time. */
    @Override
    public void refund(RateRequest r, long nowMicros) {
        throw new UnsupportedOperationException("leaky-bucket cannot refund");
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }
}
