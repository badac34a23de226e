package io.sluice;

import io.sluice.testing.MutableClock;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The time the engine-model run's Redis scripts take ({@code onCallerClock}): the run's clock, except that it stands
 * still from a freeze's start until Redis has run what it queued during the freeze and the engines have undone it.
 * In production Redis dates a call when it runs it, so the calls a freeze queued, and the undoing of their late
 * answers, all fall at one Redis time just after the thaw. On the caller's clock a call carries the time it was sent
 * at, and the run moves the engines' clock through their deadlines during a freeze (a waiter's is its 30 s wait):
 * a late prefetch dated at the freeze's start, handed back on the moved clock, would find its loan lapsed and count
 * its permits as used, which no real freeze does (issue 21: 1527577941, 1527577942). Thread-safe.
 */
final class RedisClock extends Clock {
    private static final long RUNNING = Long.MIN_VALUE;

    private final MutableClock clock;
    /** The time the scripts take while it stands still, or {@link #RUNNING}. */
    private volatile long stoppedAt = RUNNING;

    RedisClock(MutableClock clock) {
        this.clock = clock;
    }

    /** From now until {@link #goOn}, every call is dated now. */
    void standStill() {
        stoppedAt = clock.millis();
    }

    /** The scripts take the run's clock again. */
    void goOn() {
        stoppedAt = RUNNING;
    }

    @Override
    public long millis() {
        long stopped = stoppedAt;
        return stopped == RUNNING ? clock.millis() : stopped;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
