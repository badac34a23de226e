package io.sluice.memory;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.ArrayList;
import java.util.List;

/**
 * Reference model of {@code token-bucket.lua}: GCRA, one theoretical arrival time (TAT) per key. The bucket
 * holds {@code burst} tokens and gains one every {@code period / limit}; a request of cost {@code c} is
 * admitted when the TAT advanced by {@code c} intervals is at most {@code burst} intervals ahead of now.
 *
 * <p>Tokens lent to servers as prefetched stocks are out of the bucket and out of its room: the bucket refills only up
 * to {@code burst} less them (a TAT at least that many intervals ahead), until they are handed back or their loan
 * lapses (as used).
 */
public final class TokenBucketModel implements RateModel {
    private boolean stored;
    private double tat;
    private double storedLimit;
    private long idleAt;
    /** Stocks lent and not handed back, in the order lent (the script's list); a loan of 0 tokens is a tombstone. */
    private final List<Loan> lent = new ArrayList<>();

    /** Tokens lent under {@code id} until {@code untilMicros}. */
    private record Loan(String id, double tokens, double untilMicros) {
    }

    /** What a prefetch took: how many, and the answer of its last decision. */
    public record Taken(long taken, RateOutcome last) {
    }

    @Override
    public RateOutcome consume(RateRequest r, long nowMicros) {
        lapse(nowMicros);
        return decide(r, nowMicros);
    }

    /**
     * Up to {@code upTo} permits of {@code permit} (cost 1) one after another until one is rejected, lent under
     * {@code id} for {@code lentMicros}; a tombstone under {@code id} (its hand-back came first) makes it take nothing.
     */
    public Taken prefetch(RateRequest permit, long upTo, String id, long lentMicros, long nowMicros) {
        lapse(nowMicros);
        double now = nowMicros;
        Loan gone = loan(id);
        if (gone != null) {
            lent.remove(gone);
            double eff = permit.effectiveLimit();
            double base = Math.max(tat(now, eff), now + lentTokens() * interval(permit, eff));
            store(tat(now, eff), eff, now);
            return new Taken(0, answer(permit, now, 0, base, 0));
        }
        long taken = 0;
        RateOutcome last;
        do {
            last = decide(permit, nowMicros);
            if (last.allowed()) taken++;
        } while (last.allowed() && taken < upTo);
        if (taken > 0) {
            lent.add(new Loan(id, taken, now + lentMicros));
            store(tat, storedLimit, now);
        }
        return new Taken(taken, last);
    }

    /**
     * Hands back up to {@code unused} tokens of stock {@code id} (the rest were used) and ends its loan, once; none
     * lent under it: a tombstone for {@code tombstoneMicros}.
     */
    public void handBack(RateRequest permit, String id, long unused, long tombstoneMicros, long nowMicros) {
        lapse(nowMicros);
        double now = nowMicros;
        double eff = permit.effectiveLimit();
        double interval = interval(permit, eff);
        double t = tat(now, eff);
        Loan loan = loan(id);
        if (loan == null) {
            lent.add(new Loan(id, 0, now + tombstoneMicros));
        } else if (loan.tokens() > 0) {
            double base = Math.max(t, now + lentTokens() * interval);
            lent.remove(loan);
            t = Math.max(now, Math.ceil(base - Math.min(unused, loan.tokens()) * interval));
        }
        store(t, eff, now);
    }

    private RateOutcome decide(RateRequest r, long nowMicros) {
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
        // Tokens lent out are not in the bucket however long it refills.
        double base = Math.max(rescaledTat, now + lentTokens() * interval);

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
        return answer(r, now, allowed, tatF, retry);
    }

    /** What a decision that left TAT {@code tatF} answers. */
    private static RateOutcome answer(RateRequest r, double now, long allowed, double tatF, double retry) {
        double eff = r.effectiveLimit();
        double burst = r.burst();
        double effBurst = r.effectiveBurst();
        double interval = interval(r, eff);
        double tau = interval * effBurst;
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

    private static double interval(RateRequest r, double eff) {
        return r.period().toMillis() * 1000.0 / eff;
    }

    /** Loans that have lapsed (their tokens count as used) are gone. */
    private void lapse(long nowMicros) {
        lent.removeIf(l -> l.untilMicros() <= nowMicros);
    }

    private double lentTokens() {
        double tokens = 0;
        for (Loan l : lent) tokens += l.tokens();
        return tokens;
    }

    private Loan loan(String id) {
        for (Loan l : lent) if (l.id().equals(id)) return l;
        return null;
    }

    @Override
    public void refund(RateRequest r, long nowMicros) {
        lapse(nowMicros);
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
        double last = Math.max(newTat, now);
        for (Loan l : lent) last = Math.max(last, l.untilMicros());
        idleAt = (long) last;
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }
}
