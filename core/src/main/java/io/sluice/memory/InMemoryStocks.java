package io.sluice.memory;

import io.sluice.spi.Algorithm;
import io.sluice.spi.Entry;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The prefetched stocks of {@link InMemoryBackend}, lent and handed back as the Redis backend's scripts do: a sliding
 * log's in one entry of its {@link SlidingLog} that counts from the hold's end, a token bucket's or a window counter's
 * lent under an id by the key's model ({@link KeyModels}). Every algorithm but the leaky bucket, under hard throttling,
 * lends some ({@link Prefetch#supported}: the backend checks). Thread-safe: each key's state under its own lock.
 */
final class InMemoryStocks {
    /** How long a hand-back that found no stock lent is remembered, as RedissonBackend's. */
    private static final long TOMBSTONE_MICROS = 60_000_000L;

    private final SlidingLogs logs;
    private final KeyModels models;
    /** The backend's time, after the sweep it may run. */
    private final LongSupplier sweptNow;
    /** A request decided on its own, as the backend's {@code tryConsume} decides it. */
    private final Function<RateRequest, RateOutcome> decision;

    InMemoryStocks(SlidingLogs logs, KeyModels models, LongSupplier sweptNow, Function<RateRequest, RateOutcome> decision) {
        this.logs = logs;
        this.models = models;
        this.sweptNow = sweptNow;
        this.decision = decision;
    }

    /**
     * {@code r} (when not null) then up to {@code ahead} permits, a loan forgetting the used-up stocks {@code usedUp}
     * first; without {@code r} the outcome is the permits' own.
     */
    Prefetch lend(RateRequest permit, RateRequest r, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        long now = sweptNow.getAsLong();
        String id = UUID.randomUUID().toString().replace("-", "");
        List<String> forget = usedUp.stream().map(Prefetch.Receipt::stockId).toList();
        if (permit.algorithm() == Algorithm.TOKEN_BUCKET) return fromBucket(permit, r, ahead, hold, id, now, forget);
        if (permit.algorithm() != Algorithm.SLIDING_LOG) return fromWindow(permit, r, ahead, hold, id, now, forget);
        long interval = permit.period().toMillis();
        // A request over the limit is rejected, taking nothing: decided before the log's lock, since a decision may
        // sweep, which takes other logs' locks.
        RateOutcome rejected = r != null && r.cost() > r.limit() ? decision.apply(r) : null;
        return logs.under(permit, log -> {
            RateOutcome own = r == null ? null : rejected != null ? rejected : log.consume(r, now, interval, logs.nextEntry());
            // As many permits as are free, up to ahead, in one entry that counts from the hold's end.
            if (own == null) log.expire(now, interval);
            long taken = log.lend(id, ahead, permit.limit(), now + hold.toMillis());
            long left = log.left(permit.limit());
            RateOutcome outcome = own != null ? own : new RateOutcome(taken > 0, left, log.resetMillis(now, interval), 0);
            return new Prefetch(outcome, permit, taken, left, taken == 0 ? null : new Prefetch.Receipt(id, taken));
        });
    }

    /** A token bucket's prefetch: {@code r} (when not null) then up to {@code ahead} tokens lent under {@code id}. */
    private Prefetch fromBucket(RateRequest permit, RateRequest r, long ahead, Duration hold, String id, long now, List<String> usedUp) {
        long nowMicros = KeyModels.micros(now);
        long lentMicros = KeyModels.micros(hold.plus(Prefetch.RETURN_GRACE).toMillis());
        return models.under(permit, m -> {
            TokenBucketModel bucket = (TokenBucketModel) m;
            RateOutcome own = r == null ? null : bucket.consume(r, nowMicros);
            // One permit after another until one is rejected (the rest would be, alike), lent under the id.
            TokenBucketModel.Taken t = bucket.prefetch(permit, ahead, id, lentMicros, nowMicros, usedUp);
            long taken = t.taken();
            RateOutcome last = t.last();
            RateOutcome outcome = own != null ? own : new RateOutcome(taken > 0, last.remaining(), last.resetMillis(), last.retryAfterMillis());
            return new Prefetch(outcome, permit, taken, last.remaining(), taken == 0 ? null : new Prefetch.Receipt(id, taken));
        });
    }

    /**
     * A window counter's prefetch: {@code r} (when not null) then up to {@code ahead} permits lent under {@code id}, as a
     * bucket's are, for the hold and a grace.
     */
    private Prefetch fromWindow(RateRequest permit, RateRequest r, long ahead, Duration hold, String id, long now, List<String> usedUp) {
        long nowMicros = KeyModels.micros(now);
        long lentMicros = KeyModels.micros(hold.plus(Prefetch.RETURN_GRACE).toMillis());
        return models.under(permit, m -> {
            RateOutcome own = r == null ? null : m.consume(r, nowMicros);
            WindowStocks.Taken t = m instanceof FixedWindowModel fixed ? fixed.prefetch(permit, ahead, id, lentMicros, nowMicros, usedUp)
                    : ((SlidingWindowModel) m).prefetch(permit, ahead, id, lentMicros, nowMicros, usedUp);
            long taken = t.taken();
            RateOutcome last = t.last();
            RateOutcome outcome = own != null ? own : last;
            return new Prefetch(outcome, permit, taken, last.remaining(), taken == 0 ? null : new Prefetch.Receipt(id, taken),
                    t.endsInMillis(), taken == 0 ? null : Entry.as(Entry.WindowIndex.class, last.entry()));
        });
    }

    /**
     * A log's stock entry loses the unused permits (and leaves when none is left); a bucket gets the tokens back.
     *
     * @return how much the key's remaining rose, as {@link #handBack(Prefetch, long, List)} says
     */
    private long handBack(Prefetch p, long unused) {
        if (!p.handsBack(unused)) return 0;
        RateRequest r = p.request();
        String id = p.receipt().stockId();
        if (r.algorithm() != Algorithm.SLIDING_LOG) return handBackLent(r, id, unused);
        logs.ifHeld(r, log -> log.handBack(id, p.receipt().permits(), unused));
        return unused;
    }

    /**
     * A log's stock: its used permits logged again at their uses, as return-log.lua does.
     *
     * @return how much the key's remaining rose: a window counter's stock counted in a window that has ended less than
     *         {@code unused} (as the scripts answer), others {@code unused}
     */
    long handBack(Prefetch p, long unused, List<PrefetchUse> used) {
        RateRequest r = p.request();
        if (r.algorithm() != Algorithm.SLIDING_LOG || used.isEmpty() || p.receipt() == null) return handBack(p, unused);
        p.handsBack(unused);
        String id = p.receipt().stockId();
        logs.ifHeld(r, log -> log.handBack(id, p.receipt().permits(), unused, used));
        return unused;
    }

    /**
     * A token bucket's or a window counter's stock {@code id} handed back, as their scripts do (a tombstone when none is
     * lent).
     */
    private long handBackLent(RateRequest permit, String id, long unused) {
        long nowMicros = KeyModels.micros(sweptNow.getAsLong());
        return models.under(permit, m -> {
            if (m instanceof FixedWindowModel fixed) return fixed.handBack(permit, id, unused, TOMBSTONE_MICROS, nowMicros);
            if (m instanceof SlidingWindowModel sliding) return sliding.handBack(permit, id, unused, TOMBSTONE_MICROS, nowMicros);
            ((TokenBucketModel) m).handBack(permit, id, unused, TOMBSTONE_MICROS, nowMicros);
            return unused;
        });
    }
}
