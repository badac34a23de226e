package io.sluice.engine;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Deadlines for many short calls, cheaply: a call that has not answered yet joins a lock-free queue, and
 * {@link #sweep()} (run every few milliseconds by the owner's timer thread) fails the late ones and drops
 * the answered ones. Unlike a scheduled task per call, starting and ending a call wakes no thread and takes
 * no lock, which matters when every request makes one. A deadline fires up to one sweep period late.
 * Deadlines run on the monotonic {@link Ticker}, never on the wall clock.
 *
 * <p>A deadline tells a store that is slow or down from a server that is busy. Three rules keep a busy server (more
 * runnable threads than cores, where every thread, the client's I/O thread and the store's own included, waits its
 * turn for a CPU) from failing calls the store answered:
 * <ul>
 * <li><b>Only time the sweeper saw counts.</b> A call's deadline counts the time between sweeps, at most
 *     {@link #CREDIT_PER_SWEEP_MILLIS} per sweep: the sweeper is due every few milliseconds, so a longer gap is time
 *     this JVM was short of CPU (the answer may be sitting unread in a socket meanwhile), not time the store had.</li>
 * <li><b>A store that keeps answering is alive.</b> A call past its deadline waits on while the store has answered
 *     some call since this one was made, and answers keep coming (the last within the call's limit): the call is
 *     queued behind others of this client (in its lane, behind a batch), not lost in a dead store. Only answers that
 *     came in time count: an answer to a call that had already failed is a store slower than the deadline, which
 *     is the failure policy's to decide.</li>
 * <li><b>A machine with no CPU to spare waits on.</b> While this machine's CPUs are saturated ({@link CpuSaturation}),
 *     a call that has seen no answer since it was made still waits: its answer may be sent and unread, or its store
 *     (on this machine) may be waiting for a CPU. A lone call then gets the patience a call in a burst gets.</li>
 * <li><b>An answer that has arrived is never failed</b>: the sweep looks at the call itself before it fails it.</li>
 * </ul>
 * Whatever the rules say, a call fails at its hard bound ({@link #hardBound}): {@link #BUSY_PATIENCE} times its
 * limit, and never more than {@link #BUSY_PATIENCE_MAX} past it, in real time. On a machine with CPU to spare, a store
 * that answers nothing in time (down, frozen, slower than the limit) costs a call its limit after the store's last
 * answer in time, and exactly its limit for every call made after that.
 * Thread-safe.
 */
public final class Deadlines {
    /**
     * How many times its limit a call past its deadline may go on waiting while the store keeps answering: then it is
     * alive and the call is only queued behind others of this client (a burst of the application's own making, a
     * machine short of CPU), which the failure policy must not mistake for an outage.
     */
    public static final int BUSY_PATIENCE = 10;
    /** ... but never more than this past its own deadline (a waiting acquire's limit is long already). */
    public static final Duration BUSY_PATIENCE_MAX = Duration.ofSeconds(1);
    /**
     * The most of a call's deadline one sweep counts. The engine sweeps every 10 ms; a sweep that comes later than
     * this after the one before found the JVM short of CPU, and only this much of the gap is the store's.
     */
    public static final long CREDIT_PER_SWEEP_MILLIS = 20;
    private static final long CREDIT_PER_SWEEP_NANOS = CREDIT_PER_SWEEP_MILLIS * 1_000_000L;
    /** The client's own timeout is the hard bound plus this share of the limit: Sluice's deadline always decides first. */
    private static final long CLIENT_TIMEOUT_MARGIN_DIVISOR = 2;
    /**
     * ... and at least this much past the hard bound: room for a store that refuses to act on a call reaching it
     * after its caller gave up (the Redis backend's scripts, a little before the client's timeout) yet never before
     * the hard bound, while Sluice may still take the answer.
     */
    public static final Duration CLIENT_TIMEOUT_MARGIN_MIN = Duration.ofMillis(200);

    /** A call not answered yet. {@link #credited} is written by the sweep only (which runs on one thread at a time). */
    private static final class Pending {
        final CompletableFuture<?> future;
        /** The call itself, when it is a future: done means answered, whatever {@link #future} shows yet. */
        final CompletableFuture<?> source;
        final long startNanos;
        final long limitNanos;
        final long hardBoundNanos;
        final long limitMillis;
        /** How many answers in time had come when the call was made: more since is a sign of life. */
        final long answersBefore;
        long credited;

        Pending(CompletableFuture<?> future, CompletableFuture<?> source, long startNanos, long answersBefore, Duration limit) {
            this.future = future;
            this.source = source;
            this.startNanos = startNanos;
            this.answersBefore = answersBefore;
            this.limitNanos = limit.toNanos();
            this.hardBoundNanos = hardBound(limit).toNanos();
            this.limitMillis = limit.toMillis();
        }
    }

    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final Ticker ticker;
    /** Whether this machine has no CPU to spare (then no call fails before its hard bound). */
    private final BooleanSupplier saturated;
    /** The most of a deadline one sweep counts ({@link #CREDIT_PER_SWEEP_NANOS}, or no limit on a test's time). */
    private final long creditPerSweepNanos;
    /** Answers that came before their call's deadline fired (each ended a call still waiting). */
    private final AtomicLong answersInTime = new AtomicLong();
    /** When the last of them came (ticker nanos). */
    private volatile long lastAnswerNanos;
    /** When the last sweep ran (ticker nanos); this and the fields below are guarded by this, as the sweep is. */
    private long lastSweepNanos;
    private boolean swept;
    /** {@link #answersInTime} as the last sweep saw it, and the time it counted since the last answer. */
    private long answersSeen;
    private long silenceNanos;

    public Deadlines() {
        this(Ticker.SYSTEM);
    }

    /** Deadlines that never take the machine for saturated. */
    public Deadlines(Ticker ticker) {
        this(ticker, () -> false);
    }

    /** @param saturated whether this machine has no CPU to spare now (asked once a sweep) */
    public Deadlines(Ticker ticker, BooleanSupplier saturated) {
        this(ticker, saturated, CREDIT_PER_SWEEP_NANOS);
    }

    private Deadlines(Ticker ticker, BooleanSupplier saturated, long creditPerSweepNanos) {
        this.ticker = ticker;
        this.saturated = saturated;
        this.creditPerSweepNanos = creditPerSweepNanos;
    }

    /**
     * Deadlines on time a test moves by hand, while the sweeper runs on real time: every jump of the ticker counts
     * whole, and the machine is never taken for saturated, so a test decides exactly when a deadline passes.
     */
    public static Deadlines onTestTime(Ticker ticker) {
        return new Deadlines(ticker, () -> false, Long.MAX_VALUE);
    }

    /**
     * The most a call of this limit waits, in real time, however busy the server: {@link #BUSY_PATIENCE} times the
     * limit, and at most {@link #BUSY_PATIENCE_MAX} more than the limit.
     */
    public static Duration hardBound(Duration limit) {
        long extra = Math.min((BUSY_PATIENCE - 1) * limit.toNanos(), BUSY_PATIENCE_MAX.toNanos());
        return limit.plusNanos(extra);
    }

    /**
     * The timeout to give the store's client for calls of this limit: past the hard bound, so that the client never
     * fails a call (as Redisson does when its timer fires before its I/O thread has read an answer) that Sluice's
     * deadline would still wait for; {@link #CLIENT_TIMEOUT_MARGIN_MIN} at least past it.
     */
    public static Duration clientTimeout(Duration limit) {
        Duration margin = limit.dividedBy(CLIENT_TIMEOUT_MARGIN_DIVISOR);
        return hardBound(limit).plus(margin.compareTo(CLIENT_TIMEOUT_MARGIN_MIN) < 0 ? CLIENT_TIMEOUT_MARGIN_MIN : margin);
    }

    /**
     * The stage, or a {@link TimeoutException} once {@code limit} has passed without an answer (counting only the
     * time the sweeper saw), and no call made after it has answered either (else up to its {@link #hardBound}).
     */
    public <T> CompletableFuture<T> bound(CompletionStage<T> stage, Duration limit) {
        long start = ticker.nanos();
        long answersBefore = answersInTime.get();
        CompletableFuture<T> bounded = new CompletableFuture<>();
        stage.whenComplete((v, e) -> {
            if (e != null) {
                bounded.completeExceptionally(e);
            } else if (bounded.complete(v)) {
                lastAnswerNanos = ticker.nanos();
                answersInTime.incrementAndGet();
            }
        });
        if (!bounded.isDone()) {
            CompletableFuture<?> source = stage instanceof CompletableFuture<?> f ? f : null;
            pending.add(new Pending(bounded, source, start, answersBefore, limit));
        }
        return bounded;
    }

    /**
     * Fails every call past its deadline (unless the store keeps answering) or past its hard bound, and forgets every
     * answered one.
     */
    public synchronized void sweep() {
        long now = ticker.nanos();
        long sinceLast = swept ? now - lastSweepNanos : creditPerSweepNanos;
        lastSweepNanos = now;
        swept = true;
        // Read every sweep, not only when a call is about to fail: a CPU load is measured since its last reading, and
        // one last read long ago (an engine idle for minutes) would average a busy moment away (BusyServerTest: 10
        // decisions of the first burst beside spinning threads failed at 134 ms on a loaded CI machine).
        boolean saturatedNow = saturated.getAsBoolean();
        long answers = answersInTime.get();
        if (answers != answersSeen) {
            answersSeen = answers;
            silenceNanos = Math.max(0, Math.min(now - lastAnswerNanos, creditPerSweepNanos));
        } else {
            silenceNanos += Math.min(sinceLast, creditPerSweepNanos);
        }
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.future.isDone()) {
                it.remove();
                continue;
            }
            long age = now - p.startNanos;
            // Only this sweep's share of the time since the call started or since the last sweep, whichever is later.
            p.credited += Math.max(0, Math.min(Math.min(age, sinceLast), creditPerSweepNanos));
            boolean pastHardBound = age >= p.hardBoundNanos;
            if (!pastHardBound && p.credited < p.limitNanos) continue;
            // Read again: an answer that came during this sweep is news too.
            long answersNow = answersInTime.get();
            boolean alive = answersNow != p.answersBefore && (answersNow != answers || silenceNanos < p.limitNanos);
            if (!pastHardBound && (alive || saturatedNow)) continue;
            // The answer may have arrived since this sweep began: then the call ends with it, not with a timeout.
            if (p.source != null && p.source.isDone()) continue;
            p.future.completeExceptionally(new TimeoutException("no answer within " + p.limitMillis + " ms"
                    + (pastHardBound ? " (nor within its hard bound, " + p.hardBoundNanos / 1_000_000 + " ms)" : "")));
            it.remove();
        }
    }
}
