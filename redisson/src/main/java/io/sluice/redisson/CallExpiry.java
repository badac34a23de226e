package io.sluice.redisson;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Tells a decision call's script, in Redis's own time, when its caller will have given up on it (issue 21): the
 * client's timeout, less {@link #LEAD} for the answer's way back and the estimate's error. A call Redis runs later
 * (frozen, then going on with what its sockets hold) takes nothing ({@code expiry.lua}), since no answer would reach
 * anyone to undo it. Redis's time is estimated from a sample of {@code TIME} and this JVM's monotonic clock, never the
 * engine's clock (a test's runs at will, while the client's timeout is real time). Until a close sample, and for a
 * while after a refusal the estimate cannot explain, calls go without an expiry: as before, taken when they run.
 * Thread-safe.
 */
final class CallExpiry {
    /** The argument of a call without an expiry. */
    static final String NONE = "";
    /** The error a late call answers ({@code expiry.lua}). */
    static final String REFUSED = "SLUICE_LATE";
    /**
     * How long before the client's timeout a call expires: room for the answer's way back and the estimate's error.
     * The engine gives its client {@code Deadlines.CLIENT_TIMEOUT_MARGIN_MIN} past its hard bound, so a call never
     * expires while the engine may still take its answer.
     */
    static final Duration LEAD = Duration.ofMillis(100);
    /** A sample whose round trip took longer says too little of when Redis read {@code TIME}. */
    static final long MAX_ROUND_TRIP_NANOS = TimeUnit.MILLISECONDS.toNanos(40);
    /** A sample is taken again after this long (clocks drift), or this long after it was found wrong. */
    static final long RESAMPLE_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** How often a sample too slow to use is tried again. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Redis's time (ms) at a moment of this JVM's monotonic clock, and that moment; immutable. */
    private record Sample(long redisMillis, long atNanos) {
    }

    private final Supplier<CompletionStage<Long>> redisTime;
    private final long expiresAfterNanos;
    private final AtomicBoolean sampling = new AtomicBoolean();
    private volatile Sample sample;
    /** When (monotonic) a sample may be taken next. */
    private volatile long nextSampleNanos = System.nanoTime();

    /**
     * @param redisTime     Redis {@code TIME} in ms, the call sent on the same client as the decisions
     * @param clientTimeout the timeout the decision calls are sent with
     */
    CallExpiry(Supplier<CompletionStage<Long>> redisTime, Duration clientTimeout) {
        this.redisTime = redisTime;
        Duration lead = LEAD.compareTo(clientTimeout.dividedBy(2)) < 0 ? LEAD : clientTimeout.dividedBy(2);
        this.expiresAfterNanos = clientTimeout.minus(lead).toNanos();
    }

    /** The expiry argument of a call sent now: Redis's time (ms) after which it takes nothing, or {@link #NONE}. */
    String argument() {
        long now = System.nanoTime();
        if (now - nextSampleNanos >= 0) sample(now);
        Sample s = sample;
        if (s == null) return NONE;
        return Long.toString(s.redisMillis() + TimeUnit.NANOSECONDS.toMillis(now + expiresAfterNanos - s.atNanos()));
    }

    /**
     * A call sent at {@code sentNanos} was refused as late: when this JVM says it was not late yet, the estimate is
     * wrong (a Redis whose clock was stepped, a cluster node of another time), and calls go without an expiry until
     * a sample taken a while later.
     */
    void refused(long sentNanos) {
        long now = System.nanoTime();
        if (now - sentNanos < expiresAfterNanos) {
            sample = null;
            nextSampleNanos = now + RESAMPLE_NANOS;
        }
    }

    /** Takes a first sample now (once connected), rather than at the first call. */
    void prime() {
        sample(System.nanoTime());
    }

    /** Whether calls go with an expiry now (tests). */
    boolean known() {
        return sample != null;
    }

    /** Takes a sample in the background, one at a time; the calls until it lands go as they would have. */
    private void sample(long now) {
        if (!sampling.compareAndSet(false, true)) return;
        nextSampleNanos = now + RETRY_NANOS;
        long sent = System.nanoTime();
        CompletionStage<Long> time;
        try {
            time = redisTime.get();
        } catch (RuntimeException e) {
            sampling.set(false);
            return;
        }
        time.whenComplete((redisMillis, e) -> {
            long back = System.nanoTime();
            if (e == null && back - sent <= MAX_ROUND_TRIP_NANOS) {
                // Redis read TIME somewhere in the round trip: its middle errs by half of it at most, counted late
                // (the call then expires a little later, never before the client's timeout less the lead).
                long half = (back - sent) / 2;
                sample = new Sample(redisMillis + TimeUnit.NANOSECONDS.toMillis(half), sent + half);
                nextSampleNanos = back + RESAMPLE_NANOS;
            }
            sampling.set(false);
        });
    }
}
