package io.sluice.internal;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stops calling a backend that keeps failing, so an outage costs requests nothing once detected: after
 * {@code threshold} consecutive failures it opens for {@code cooldownMillis}; then it lets one probe
 * through at a time (each probe buys another cool-down for everyone else) until a call succeeds and
 * closes it. Thread-safe.
 */
public final class CircuitBreaker {
    private final Clock clock;
    private final int threshold;
    private final long cooldownMillis;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    /** 0 when closed; otherwise the time until which calls are refused. */
    private final AtomicLong openUntil = new AtomicLong();

    public CircuitBreaker(Clock clock, int threshold, long cooldownMillis) {
        this.clock = clock;
        this.threshold = threshold;
        this.cooldownMillis = cooldownMillis;
    }

    /** Whether this call may go to the backend. */
    public boolean allows() {
        long until = openUntil.get();
        if (until == 0) return true;
        long now = clock.millis();
        // One caller wins the probe; the rest wait for its verdict or the next cool-down.
        return now >= until && openUntil.compareAndSet(until, now + cooldownMillis);
    }

    public void onSuccess() {
        // Read before writing: every decision succeeds, and a write would bounce the line between cores.
        if (consecutiveFailures.get() != 0) consecutiveFailures.set(0);
        if (openUntil.get() != 0) openUntil.set(0);
    }

    public void onFailure() {
        if (consecutiveFailures.incrementAndGet() >= threshold) {
            long next = clock.millis() + cooldownMillis;
            openUntil.accumulateAndGet(next, Math::max);
        }
    }

    public boolean isOpen() {
        return openUntil.get() != 0;
    }
}
