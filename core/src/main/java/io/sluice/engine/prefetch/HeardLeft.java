package io.sluice.engine.prefetch;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateRequest;

/**
 * What the backend last said one key had left besides this server's stocks (after this server's last call of the
 * key, and the stocks it has handed back since): with the stocks' rest, the key's remaining permits. Guarded by the
 * lock of the key's slot.
 */
final class HeardLeft {
    private long left;
    /** When the backend said {@link #left} (this server's ticker), and how long until its next permit freed. */
    private long at;
    private long resetMillis;
    /** How many answers {@link #heard}: a correction meant for an earlier one does not apply to a later one. */
    private long answers;

    /** What the backend said the key had left besides this server's stocks, at {@code at}. */
    void heard(long left, long at, long resetMillis) {
        this.left = left;
        this.at = at;
        this.resetMillis = resetMillis;
        answers++;
    }

    /** Which answer {@link #left} stands on (it changes with each {@link #heard}). */
    long answer() {
        return answers;
    }

    /**
     * The key has {@code more} permits besides this server's stocks (a stock handed back, a refund), or fewer (a
     * hand-back's credit expected and corrected by its answer).
     */
    void add(long more) {
        left += more;
    }

    /**
     * Corrects what a hand-back was expected to credit by {@code more}, once its answer tells what it credited: only
     * while {@link #left} still stands on {@code answer}. A later answer was asked after the hand-back was answered (a
     * key's call waits for its hand-backs), so it counts the credit itself.
     */
    void correct(long answer, long more) {
        if (answers == answer) left += more;
    }

    /**
     * What the backend said beside another answer of the key that landed while this one was in flight
     * ({@link CrossedAnswers}), the two in an order unknown in the backend: with nothing given back between them (the
     * key's refunds and hand-backs are ordered with both), the later one there took the most, so answered the lower
     * remaining; that is kept. Permits that time freed between the two (a log's entries leaving, a window turning) may
     * leave it low until the key's next answer heard in order, never high. A token bucket's is compared with what the
     * answer heard before stands at by {@code at}.
     *
     * @return what the key has left besides this server's stocks by {@code at}, as kept
     */
    long heardBeside(RateRequest r, long left, long at, long resetMillis) {
        long standing = this.left + gained(r, at);
        if (left > standing) return standing;
        heard(left, at, resetMillis);
        return left;
    }

    /**
     * What the key has left besides this server's stocks now: what the backend last said, and for a token bucket the
     * tokens it has gained since (its first at the reset the backend gave, then one an interval), up to its capacity
     * less the {@code lent} tokens of this server's stocks (out of the bucket and of its room until handed back).
     * Never more than that room either: a refund credited to a bucket near full fills it only to its room, so what
     * was added since may not all be there. Exact with one server; with several, other servers' stocks may keep the
     * bucket lower than this says.
     */
    long now(RateRequest r, long now, long lent) {
        if (r.algorithm() != Algorithm.TOKEN_BUCKET) return left;
        long room = Math.max(0, r.burst() - lent);
        return Math.min(left + gained(r, now), room);
    }

    /** The tokens a token bucket has gained by {@code now} since what was heard; 0 for other algorithms. */
    private long gained(RateRequest r, long now) {
        if (r.algorithm() != Algorithm.TOKEN_BUCKET) return 0;
        long elapsed = now - at;
        if (elapsed < resetMillis) return 0;
        double intervalMillis = (double) r.period().toMillis() / r.limit();
        return 1 + (long) Math.floor((elapsed - resetMillis) / intervalMillis);
    }
}
