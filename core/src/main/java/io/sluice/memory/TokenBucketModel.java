package io.sluice.memory;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/**
 * Reference model of {@code token-bucket.lua}: GCRA, one theoretical arrival time (TAT) per key. The bucket
 * holds {@code burst} tokens and gains one every {@code period / limit}; a request of cost {@code c} is
 * admitted when the TAT advanced by {@code c} intervals is at most {@code burst} intervals ahead of now.
 */
public final class TokenBucketModel implements RateModel {
    private boolean stored;
    private double tat;
    private double storedLimit;
    private long idleAt;

    @Override
    public RateOutcome consume(RateRequest r, long nowMicros) {
        double now = nowMicros;
        double limit = r.limit();
        double eff = r.effectiveLimit();
        double burst = r.burst();
        double effBurst = r.effectiveBurst();
        double cost = r.cost();
        double interval = r.period().toMillis() * 1000.0 / eff;
        double tau = interval * effBurst;
        double rescaledTat = tat(now, eff);
        boolean rescaled = stored && storedLimit != eff && tat > now;
        double base = Math.max(rescaledTat, now);

        long allowed = 0;
        double retry = 0;
        double tatF = base;
        if (cost > effBurst) {
            retry = RateOutcome.NEVER_FITS;
        } else {
            double newTat = Math.ceil(base + cost * interval);
            double allowAt = newTat - tau;
            if (now >= allowAt) {
                allowed = 1;
                tatF = newTat;
                store(newTat, eff, now);
            } else {
                retry = RateModel.millis(allowAt - now);
            }
        }
        // A rescaled state is stored at once, even by a rejection (which takes nothing), as the script does.
        if (rescaled && allowed == 0) store(rescaledTat, eff, now);
        double remEff = effBurst;
        if (tatF > now) {
            remEff = Math.floor((now - (tatF - tau)) / interval);
            if (remEff < 0) remEff = 0;
        }
        double extra = effBurst - burst;
        double remaining = Math.max(0, remEff - extra);
        boolean over = allowed == 1 && remEff < extra;
        long reset = tatF > now ? RateModel.millis(tatF - tau + (remEff + 1) * interval - now) : 0;
        return new RateOutcome(allowed == 1, (long) remaining, reset, (long) retry, 0, over);
    }

    @Override
    public void refund(RateRequest r, long nowMicros) {
        if (!stored) return;
        double now = nowMicros;
        double eff = r.effectiveLimit();
        double interval = r.period().toMillis() * 1000.0 / eff;
        double base = Math.max(tat(now, eff), now);
        store(Math.max(now, Math.ceil(base - r.cost() * interval)), eff, now);
    }

    /** The stored TAT, rescaled to a changed limit so that the permits used (not the time owed) carry over. */
    private double tat(double now, double eff) {
        if (!stored) return now;
        double t = tat;
        if (storedLimit != eff && t > now) t = Math.ceil(now + (t - now) * storedLimit / eff);
        return t;
    }

    private void store(double newTat, double eff, double now) {
        stored = true;
        tat = newTat;
        storedLimit = eff;
        idleAt = (long) Math.max(newTat, now);
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }
}
