package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.redisson.api.RScript;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The calls of {@link RedissonBackend}'s prefetched stocks: a request and its stock as one unit of the key's lane, a
 * stock handed back (a log's by {@code return-log.lua}, a bucket's or a window counter's by its script's hand-back),
 * and a stock whose answer never came handed back by its id, retried while Redis cannot be reached. Thread-safe.
 */
final class StockCalls {
    /** The first character of a prefetch's id, which a request's (hexadecimal) never has. */
    static final String STOCK_ID_MARK = "s";
    /**
     * How long a hand-back of a prefetch Sluice gave up on is remembered when it reached Redis first, so that the
     * prefetch, if Redis runs it after all, takes nothing; and how long and how often such a hand-back is retried.
     */
    static final long TOMBSTONE_MILLIS = 60_000;
    static final long CANCEL_RETRY_MILLIS = 500;
    static final int CANCEL_ATTEMPTS = 120;

    /** Runs a call now when the backend is connected, otherwise once its first connection succeeds. */
    interface Connected {
        <T> CompletionStage<T> whenConnected(Supplier<CompletionStage<T>> call);
    }

    private final RScript scripts;
    private final DecisionLanes lanes;
    private final DecisionCalls calls;
    private final ReturnLogScript returnLog;
    private final CancelLogScript cancelLog;
    private final Clock clock;
    private final Connected connected;
    /** Whether the backend is closed: a hand-back given up on is retried no more. */
    private final BooleanSupplier closed;

    StockCalls(RScript scripts, DecisionLanes lanes, DecisionCalls calls, Clock clock, Connected connected, BooleanSupplier closed) {
        this.scripts = scripts;
        this.lanes = lanes;
        this.calls = calls;
        this.returnLog = new ReturnLogScript(scripts);
        this.cancelLog = new CancelLogScript(scripts);
        this.clock = clock;
        this.connected = connected;
        this.closed = closed;
    }

    /**
     * {@code requests} (the one request, or none) then up to {@code ahead} permits, as one unit of the key's lane,
     * forgetting the used-up stocks {@code usedUp} first (a log's stocks are never among them: they go back with their
     * uses). The outcome is the request's, or the prefetch's own when there is none; what is left is the prefetch's
     * answer.
     */
    CompletionStage<Prefetch> prefetched(List<RateRequest> requests, RateRequest permit, long ahead, Duration hold, String id,
                                         List<Prefetch.Receipt> usedUp) {
        // The receipts are this backend's own (the engine's Prefetcher asks only it), so each id is a stockId.
        List<String> forget = usedUp.stream().map(Prefetch.Receipt::stockId).toList();
        DecisionLanes.Ahead run = new DecisionLanes.Ahead(permit, ahead, hold.toMillis(), id, new AtomicLong(), new AtomicLong(), forget);
        DecisionLanes.Unit unit = new DecisionLanes.Unit(requests, DecisionScript.CONSUME, run, new CompletableFuture<>());
        CompletionStage<Prefetch> answered = connected.whenConnected(() -> lanes.submit(unit)).thenApply(answers -> {
            long taken = run.taken().get();
            RateOutcome prefetch = answers.get(answers.size() - 1);
            // The receipt: the stock's id (a log's entry, a bucket's loan) and its permits.
            Prefetch.Receipt receipt = taken == 0 ? null : new Prefetch.Receipt(run.id(), taken);
            // A window counter's prefetch answer names the window that counted the stock (a log's, a bucket's none).
            Entry.WindowIndex counted = taken == 0 ? null : Entry.as(Entry.WindowIndex.class, prefetch.entry());
            return new Prefetch(answers.get(0), permit, taken, prefetch.remaining(), receipt, run.endsIn().get(), counted);
        });
        // No answer (a timeout, a lost connection) does not mean Redis took nothing: it may run the call later.
        answered.whenComplete((p, e) -> {
            if (e != null && run.sentAt().get() != 0) cancel(run, 1);
        });
        return answered;
    }

    /**
     * Hands back whatever the prefetch {@code run} took, its answer never having come: by its id, once, whether Redis
     * ran it already or runs it later (then it takes nothing). Retried while Redis cannot be reached.
     */
    private void cancel(DecisionLanes.Ahead run, int attempt) {
        cancelOnce(run).whenComplete((v, e) -> {
            if (e == null || closed.getAsBoolean() || attempt >= CANCEL_ATTEMPTS) return;
            CompletableFuture.runAsync(() -> cancel(run, attempt + 1),
                    CompletableFuture.delayedExecutor(CANCEL_RETRY_MILLIS, TimeUnit.MILLISECONDS));
        });
    }

    /**
     * One attempt of the hand-back of a prefetch given up on ({@code permit}, up to {@code ahead}, under {@code id},
     * sent at {@code sentAt} on the backend's clock), whichever reaches Redis first.
     */
    CompletionStage<?> giveUp(RateRequest permit, long ahead, Duration hold, String id, long sentAt) {
        return cancelOnce(new DecisionLanes.Ahead(permit, ahead, hold.toMillis(), id, new AtomicLong(), new AtomicLong(sentAt)));
    }

    /** One attempt of {@link #cancel}. */
    private CompletionStage<?> cancelOnce(DecisionLanes.Ahead run) {
        RateRequest r = run.request();
        CompletionStage<?> sent;
        try {
            if (r.algorithm() != Algorithm.SLIDING_LOG) {
                sent = handBackLent(r.withCost(run.count()), run.id());
            } else {
                long countsFrom = run.sentAt().get() + run.offsetMillis();
                sent = connected.whenConnected(() -> cancelLog.call(r.key(), run.id(), countsFrom, clock.millis(), TOMBSTONE_MILLIS));
            }
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent;
    }

    /**
     * A stock {@code id} lent by a token bucket or a window counter handed back: up to {@code r.cost()} of its permits
     * return to the bucket or come off the counter of the window they were counted in (the rest were used), and it is
     * no longer lent; a tombstone when Redis has not lent it (yet).
     */
    private CompletionStage<?> handBackLent(RateRequest r, String id) {
        DecisionScript script = calls.script(r.algorithm());
        String now = Long.toString(clock.millis());
        Object[] argv = script.handBackArguments(r, id, now, TOMBSTONE_MILLIS);
        return connected.whenConnected(() -> scripts.<List<Object>>evalAsync(r.key(), RScript.Mode.READ_WRITE, script.one().text(),
                RScript.ReturnType.LIST, script.keys(r), argv));
    }

    /**
     * The last {@code unused} of the prefetched permits, with how much the key's remaining rose: a window counter's
     * come off the counter of their window, whose hand-back answers it; a log's or a bucket's come back whole.
     */
    CompletionStage<Long> returnPrefetched(Prefetch p, long unused, List<PrefetchUse> used) {
        Algorithm algorithm = p.request().algorithm();
        if (algorithm == Algorithm.FIXED_WINDOW || algorithm == Algorithm.SLIDING_WINDOW) return returnWindowStock(p, unused);
        return returnWhole(p, unused, used).thenApply(ignored -> unused);
    }

    /**
     * A window counter's stock: its hand-back answers what it credited (its second number: nothing for a window gone,
     * the previous window's weight for a sliding window's stock counted in it).
     */
    private CompletionStage<Long> returnWindowStock(Prefetch p, long unused) {
        if (!p.handsBack(unused)) return CompletableFuture.completedFuture(0L);
        return handBackLent(p.request().withCost(unused), p.receipt().stockId())
                .thenApply(answer -> ((Number) ((List<?>) answer).get(1)).longValue());
    }

    /**
     * A bucket's tokens handed back, or a log's own entries removed; a log's stock goes back even with nothing unused
     * when told its uses, which are logged again at their times in the same script.
     */
    private CompletionStage<?> returnWhole(Prefetch p, long unused, List<PrefetchUse> used) {
        RateRequest r = p.request();
        boolean toldUses = r.algorithm() == Algorithm.SLIDING_LOG && !used.isEmpty() && p.receipt() != null;
        if (!p.handsBack(unused) && !toldUses) return CompletableFuture.completedFuture(null);
        String id = p.receipt().stockId();
        if (r.algorithm() != Algorithm.SLIDING_LOG) return handBackLent(r.withCost(unused), id);
        return connected.whenConnected(() -> returnLog.call(r.key(), id, p.receipt().permits(), unused, used));
    }

    /** A prefetch's id: marked, so that {@code refund-log.lua} never takes a stock's entry for a request's. */
    static String stockId() {
        return STOCK_ID_MARK + SlidingLogScript.randomId();
    }
}
