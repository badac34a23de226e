package io.sluice.memory;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reference model of {@code token-bucket.lua}: GCRA, one theoretical arrival time (TAT) per key. The bucket
 * holds {@code burst} tokens and gains one every {@code period / limit}; a request of cost {@code c} is
 * admitted when the TAT advanced by {@code c} intervals is at most {@code burst} intervals ahead of now.
 *
 * <p>Under soft or elastic throttling the overage is a bucket of its own, with a TAT of its own: {@code effectiveBurst
 * - burst} tokens gaining {@code effectiveLimit - limit} per period. A request the bucket cannot pay for is paid by
 * it, and is then over the nominal limit (an elastic rule's capacity rule must pay for it, or it is refunded there).
 * What is within the limit refills at the nominal rate, whatever the overage.
 *
 * <p>Tokens lent to servers as prefetched stocks are out of the bucket and out of its room: the bucket refills only up
 * to {@code burst} less them (a TAT at least that many intervals ahead), until they are handed back or their loan
 * lapses (as used).
 */
public final class TokenBucketModel implements RateModel {
    /** What the script's comparisons allow its doubles' last bits (microseconds). */
    private static final double EPSILON = 0.001;
    private static final double NANOS_PER_MICRO = 1e9;
    private boolean stored;
    /** The TATs as the script stores them: whole microseconds and nine decimals. */
    private String tat;
    private double storedLimit;
    private String overageTat;
    /** The overage's rate the overage TAT was computed with; 0 when none was stored. */
    private double storedOverageLimit;
    private long idleAt;
    /** Stocks lent and not handed back, in the order lent (the script's list); a loan of 0 tokens is a tombstone. */
    private final List<Loan> lent = new ArrayList<>();

    /** Tokens lent under {@code id} until {@code untilMicros}. */
    private record Loan(String id, double tokens, double untilMicros) {
    }

    /** What a prefetch took: how many, and the answer of its last decision. */
    public record Taken(long taken, RateOutcome last) {
    }

    /** A stored time relative to {@code now}, as the script reads it. */
    private static double relative(String stored, double now) {
        int dot = stored.indexOf('.');
        double r = Double.parseDouble(dot < 0 ? stored : stored.substring(0, dot)) - now;
        if (dot >= 0 && dot < stored.length() - 1) r = r + Double.parseDouble("0." + stored.substring(dot + 1));
        return r;
    }

    /** A time relative to {@code now} as the script stores it: whole microseconds and nine decimals, rounded up. */
    private static String absolute(double r, double now) {
        double whole = Math.floor(r);
        double fraction = Math.ceil((r - whole) * NANOS_PER_MICRO);
        if (fraction >= NANOS_PER_MICRO) {
            whole = whole + 1;
            fraction = 0;
        }
        return String.format(Locale.ROOT, "%.0f.%09d", now + whole, (long) fraction);
    }

    /**
     * One request's numbers and the state as the script reads it (rescaled to the request's limits), the TATs
     * relative to now (to a fraction of a microsecond: an interval is rarely a whole number of them).
     */
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
        lapse(nowMicros);
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
        b.tat = 0;
        b.overageTat = 0;
        if (stored) {
            b.tat = rescale(b, relative(tat, b.now), storedLimit, limit);
            if (storedOverageLimit > 0 && b.overageLimit > 0) {
                b.overageTat = rescale(b, relative(overageTat, b.now), storedOverageLimit, b.overageLimit);
            }
        }
        return b;
    }

    /** A changed limit keeps the permits used, not the time owed, as the script rescales. */
    private static double rescale(Bucket b, double t, double storedRate, double rate) {
        if (storedRate != rate && t > 0) {
            b.rescaled = true;
            return t * storedRate / rate;
        }
        return t;
    }

    /** Where the bucket's next token is owed from: its TAT, or later while tokens are lent out (not in the bucket). */
    private double base(Bucket b) {
        return Math.max(b.tat, lentTokens() * b.interval);
    }

    @Override
    public RateOutcome consume(RateRequest r, long nowMicros) {
        Bucket b = load(r, nowMicros);
        RateOutcome o = decide(b, r);
        // A rescaled state is stored even by a rejection (which takes nothing), as the script does; an admission always.
        if (o.allowed() || b.rescaled) store(b, r);
        return o;
    }

    /** One decision on the state so far; an admission moves {@code b}. */
    private RateOutcome decide(Bucket b, RateRequest r) {
        double burst = r.burst();
        double cost = r.cost();
        double base = base(b);
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
                double newTat = base + cost * b.interval;
                double allowAt = newTat - b.tau;
                if (allowAt <= EPSILON) {
                    allowed = true;
                    tatF = newTat;
                    b.tat = newTat;
                } else {
                    wait = (double) RateModel.millis(allowAt - EPSILON);
                }
            }
            if (!allowed && fitsOverage) {
                double overageNew = Math.max(b.overageTat, 0) + cost * b.overageInterval;
                double overageAllowAt = overageNew - b.overageTau;
                if (overageAllowAt <= EPSILON) {
                    allowed = true;
                    over = true;
                    b.overageTat = overageNew;
                } else {
                    double overageWait = RateModel.millis(overageAllowAt - EPSILON);
                    if (wait == null || overageWait < wait) wait = overageWait;
                }
            }
            if (!allowed) retry = wait;
        }
        return answer(b, r, allowed, over, tatF, retry);
    }

    /** What a decision that left the bucket's TAT at {@code tatF} answers: its tokens and when the next one arrives. */
    private static RateOutcome answer(Bucket b, RateRequest r, boolean allowed, boolean over, double tatF, double retry) {
        double remaining = r.burst();
        if (tatF > 0) {
            remaining = Math.floor((b.tau - tatF + EPSILON) / b.interval);
            if (remaining < 0) remaining = 0;
        }
        long reset = tatF > 0 ? RateModel.millis(tatF - b.tau + (remaining + 1) * b.interval - EPSILON) : 0;
        return new RateOutcome(allowed, (long) remaining, reset, (long) retry, 0, over);
    }

    /**
     * Up to {@code upTo} permits of {@code permit} (cost 1) one after another until one is rejected, lent under
     * {@code id} for {@code lentMicros}; a tombstone under {@code id} (its hand-back came first) makes it take nothing.
     * The loans of the stocks {@code usedUp} (their ids) end first, as their hand-backs of nothing would end them.
     */
    public Taken prefetch(RateRequest permit, long upTo, String id, long lentMicros, long nowMicros, List<String> usedUp) {
        Bucket b = load(permit, nowMicros);
        boolean forgot = false;
        for (String used : usedUp) {
            Loan loan = loan(used);
            if (loan != null && loan.tokens() > 0) {
                double base = base(b);
                lent.remove(loan);
                b.tat = Math.max(0, base);
                forgot = true;
            }
        }
        Loan gone = loan(id);
        if (gone != null) {
            lent.remove(gone);
            store(b, permit);
            return new Taken(0, answer(b, permit, false, false, base(b), 0));
        }
        long taken = 0;
        RateOutcome last;
        do {
            last = decide(b, permit);
            if (last.allowed()) taken++;
        } while (last.allowed() && taken < upTo);
        if (taken > 0) lent.add(new Loan(id, taken, b.now + lentMicros));
        if (taken > 0 || b.rescaled || forgot) store(b, permit);
        return new Taken(taken, last);
    }

    /**
     * Hands back up to {@code unused} tokens of stock {@code id} (the rest were used) and ends its loan, once; none
     * lent under it: a tombstone for {@code tombstoneMicros}.
     */
    public void handBack(RateRequest permit, String id, long unused, long tombstoneMicros, long nowMicros) {
        Bucket b = load(permit, nowMicros);
        Loan loan = loan(id);
        if (loan == null) {
            lent.add(new Loan(id, 0, b.now + tombstoneMicros));
        } else if (loan.tokens() > 0) {
            double base = base(b);
            lent.remove(loan);
            b.tat = Math.max(0, base - Math.min(unused, loan.tokens()) * b.interval);
        }
        store(b, permit);
    }

    /**
     * {@code r.cost()} tokens back: to the overage's bucket under an overage (a request the overage paid for), else to
     * the bucket; a request the bucket paid for comes at its nominal limit ({@code effectiveLimit == limit}), which
     * leaves the overage's state as stored.
     */
    @Override
    public void refund(RateRequest r, long nowMicros) {
        if (!stored) return;
        Bucket b = load(r, nowMicros);
        if (b.overageLimit > 0) {
            b.overageTat = Math.max(0, Math.max(b.overageTat, 0) - r.cost() * b.overageInterval);
        } else {
            b.tat = Math.max(0, Math.max(b.tat, 0) - r.cost() * b.interval);
        }
        store(b, r);
    }

    /**
     * The bucket pays the cost whatever it holds: its TAT moves on by the cost from where its next token is owed, past
     * the burst if need be (a debt the refill repays before the key is admitted again), as the script's charge does.
     */
    @Override
    public void charge(RateRequest r, long nowMicros) {
        Bucket b = load(r, nowMicros);
        b.tat = base(b) + r.cost() * b.interval;
        store(b, r);
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

    private void store(Bucket b, RateRequest r) {
        stored = true;
        tat = absolute(b.tat, b.now);
        storedLimit = r.limit();
        double overageUntil = b.overageTat;
        if (b.overageLimit > 0) {
            overageTat = absolute(b.overageTat, b.now);
            storedOverageLimit = b.overageLimit;
        } else if (storedOverageLimit > 0) {
            // A call without an overage (a refund at the nominal limit) leaves the overage's state as stored.
            overageUntil = relative(overageTat, b.now);
        } else {
            overageTat = absolute(0, b.now);
        }
        double last = b.now + Math.max(b.tat, overageUntil);
        for (Loan l : lent) last = Math.max(last, l.untilMicros());
        idleAt = (long) last;
    }

    @Override
    public long idleAtMicros() {
        return idleAt;
    }
}
