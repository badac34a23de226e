package io.sluice.testing;

import io.sluice.engine.Ticker;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A monotonic ticker tests move by hand, independent of any wall clock. Thread-safe. */
public final class ManualTicker implements Ticker {
    /** Far from 0, as System.nanoTime is: code must use differences only. */
    private final AtomicLong nanos = new AtomicLong(-7_000_000_000_000L);

    public void advance(Duration d) {
        if (d.isNegative()) throw new IllegalArgumentException("monotonic time never goes back: " + d);
        nanos.addAndGet(d.toNanos());
    }

    @Override
    public long nanos() {
        return nanos.get();
    }
}
