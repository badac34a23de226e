package io.sluice.engine;

/**
 * Monotonic time for everything Sluice measures locally (the circuit breaker's cool-down, the attack shield's
 * retry-after, decision deadlines, lease renewal, log throttling): {@link System#nanoTime()}, which never
 * jumps when NTP or an operator steps the wall clock. Only differences between two readings mean anything.
 * The wall clock ({@code java.time.Clock}) is kept for what Redis stores: window entries and lease expiries,
 * which every server must read on one time base. Injectable, so tests move time by hand.
 */
@FunctionalInterface
public interface Ticker {
    /** This JVM's monotonic clock. */
    Ticker SYSTEM = System::nanoTime;

    /** Nanoseconds from an arbitrary origin. */
    long nanos();

    /** The same reading in milliseconds (rounded down, so differences stay exact to the millisecond). */
    default long millis() {
        return Math.floorDiv(nanos(), 1_000_000L);
    }
}
