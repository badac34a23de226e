package io.sluice.memory;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/**
 * Reference model of {@code token-bucket.lua}: GCRA, one theoretical arrival time (TAT) per key. The bucket
 * holds {@code burst} tokens and gains one every {@code period / limit}; a request of cost {@code c} is
 * admitted when the TAT advanced by {@code c} intervals is at most {@code burst} intervals ahead of now.
 *
 * <p>Under soft or elastic throttling the overage is a bucket of its own, with a TAT of its own: {@code effectiveBurst
 * - burst} tokens gaining {@code effectiveLimit - limit} per period. A request the bucket cannot pay for is paid by
 * it, and is then over the nominal limit (an elastic rule's capacity rule must pay for it, or it is refunded there).
 * What is within the limit refills at the nominal rate, whatever the overage.
 */
public final class TokenBucketModel implements RateModel {
    private boolean stored;
    private double tat;
    private double storedLimit;
    private double overageTat;
    /** The overage's rate the overage TAT was computed with; 0 when none was stored. */
    private double storedOverageLimit;
    private long idleAt;

    /** One request's numbers and the state as the script reads it (rescaled to the request's limits). */
    private static final class Bucket {
        double now;
        double interval;
        double tau;
        double overageLimit;
        double overageBurst;
        double overageInterval;
        double overageTau;
        double tat;
        double overageTat;
        boolean rescaled;
    }

    private Bucket load(RateRequest r, long nowMicros) {
        Bucket b = new Bucket();
        b.now = nowMicros;
        double period = r.period().toMillis() * 1000.0;
        double limit = r.limit();
        b.interval = period / limit;
        b.tau = b.interval * r.burst();
        b.overageLimit = (double) r.effectiveLimit() - limit;
        b.overageBurst = (double) r.effectiveBurst() - r.burst();
        if (b.overageLimit > 0) {
            b.overageInterval = period / b.overageLimit;
            b.overageTau = b.overageInterval * b.overageBurst;
        }
        b.tat = b.now;
        b.overageTat = b.now;
        if (stored) {
            b.tat = rescale(b, tat, storedLimit, limit);
            if (storedOverageLimit > 0 && b.overageLimit > 0) {
                b.overageTat = rescale(b, overageTat, storedOverageLimit, b.overageLimit);
            }
        }
        return b;
    }

    /** A changed limit keeps the permits used, not the time owed, as the script rescales. */
    private static double rescale(Bucket b, double t, double storedRate, double rate) {
        if (storedRate != rate && t > b.now) {
            b.rescaled = true;
            return Math.ceil(b.now + (t - b.now) * storedRate / rate);
        }
        return t;
    }

    @Override
    public RateOutcome consume(RateRequest r, long nowMicros) {
        Bucket b = load(r, nowMicros);
        double now = b.now;
        double burst = r.burst();
        double cost = r.cost();
        double base = Math.max(b.tat, now);
        boolean fitsOverage = b.overageLimit > 0 && cost <= b.overageBurst;

        boolean allowed = false;
        boolean over = false;
        double retry = 0;
        double tatF = base;
        if (cost > burst && !fitsOverage) {
            retry = RateOutcome.NEVER_FITS;
        } else {
            Double wait = null;
            if (cost <= burst) {
                double newTat = Math.ceil(base + cost * b.interval);
                double allowAt = newTat - b.tau;
                if (now >= allowAt) {
                    allowed = true;
                    tatF = newTat;
                    b.tat = newTat;
                } else {
                    wait = (double) RateModel.millis(allowAt - now);
                }
            }
            if (!allowed && fitsOverage) {
                double overageNew = Math.ceil(Math.max(b.overageTat, now) + cost * b.overageInterval);
                double overageAllowAt = overageNew - b.overageTau;
                if (now >= overageAllowAt) {
                    allowed = true;
                    over = true;
                    b.overageTat = overageNew;
                } else {
                    double overageWait = RateModel.millis(overageAllowAt - now);
                    if (wait == null || overageWait < wait) wait = overageWait;
                }
            }
            if (!allowed) retry = wait;
        }
        // A rescaled state is stored even by a rejection (which takes nothing), as the script does; an admission always.
        if (allowed || b.rescaled) store(b, r);
        double remaining = burst;
        if (tatF > now) {
            remaining = Math.floor((now - (tatF - b.tau)) / b.interval);
            if (remaining < 0) remaining = 0;
        }
        long reset = tatF > now ? RateModel.millis(tatF - b.tau + (remaining + 1) * b.interval - now) : 0;
        return new RateOutcome(allowed, (long) remaining, reset, (long) retry, 0, over);
    }

    /** Hands the cost back to the overage's bucket when there is one (what an elastic refund undoes), else to the bucket. */
    @Override
    public void refund(RateRequest r, long nowMicros) {
        if (!stored) return;
        Bucket b = load(r, nowMicros);
        double now = b.now;
        if (b.overageLimit > 0) {
            b.overageTat = Math.max(now, Math.ceil(Math.max(b.overageTat, now) - r.cost() * b.overageInterval));
        } else {
            b.tat = Math.max(now, Math.ceil(Math.max(b.tat, now) - r.cost() * b.interval));
        }
        store(b, r);
    }

    private void store(Bucket b, RateRequest r) {
        stored = true;
        tat = b.tat;
        storedLimit = r.limit();
        overageTat = b.overageTat;
        storedOverageLimit = b.overageLimit > 0 ? b.overageLimit : 0;
        idleAt = (long) Math.max(Math.max(b.tat, b.overageTat), b.now);
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }
}
