package io.sluice.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stops calling a backend that keeps failing, so an outage costs requests nothing once detected: after
 * {@code threshold} consecutive failures it opens for {@code cooldownMillis}; then it lets one probe
 * through at a time (each probe buys another cool-down for everyone else) until a call succeeds and
 * closes it. The cool-down runs on the monotonic {@link Ticker}: a wall clock stepped back an hour must not
 * keep the breaker open for an hour. Thread-safe.
 */
public final class CircuitBreaker {
    private final Ticker ticker;
    private final int threshold;
    private final long cooldownMillis;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    /** Whether {@link #openUntil} holds a time: any ticker reading may be 0. */
    private volatile boolean open;
    /** While open, the ticker reading (ms) until which calls are refused. */
    private final AtomicLong openUntil = new AtomicLong();

    public CircuitBreaker(Ticker ticker, int threshold, long cooldownMillis) {
        this.ticker = ticker;
        this.threshold = threshold;
        this.cooldownMillis = cooldownMillis;
    }

    /** Whether this call may go to the backend. */
    public boolean allows() {
        if (!open) return true;
        long until = openUntil.get();
        long now = ticker.millis();
        // One caller wins the probe; the rest wait for its verdict or the next cool-down.
        return now - until >= 0 && openUntil.compareAndSet(until, now + cooldownMillis);
    }

    public void onSuccess() {
        // Read before writing: every decision succeeds, and a write would bounce the line between cores.
        if (consecutiveFailures.get() != 0) consecutiveFailures.set(0);
        if (open) open = false;
    }

    public void onFailure() {
        if (consecutiveFailures.incrementAndGet() >= threshold) {
            long next = ticker.millis() + cooldownMillis;
            if (open) {
                openUntil.accumulateAndGet(next, (a, b) -> b - a > 0 ? b : a);
            } else {
                openUntil.set(next);
                open = true;
            }
        }
    }

    public boolean isOpen() {
        return open;
    }
}
