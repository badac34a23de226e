package io.sluice.testing;

import io.sluice.engine.Ticker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock tests move by hand, so no test sleeps to cross a window. Thread-safe. It is a {@link Ticker} too, for
 * tests where local and Redis time move together; tests of a wall clock that jumps use a separate
 * {@link ManualTicker}.
 */
public final class MutableClock extends Clock implements Ticker {
    private final AtomicLong millis;

    public MutableClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    /** Starts at the real time, so state written with it expires in Redis like real state. */
    public static MutableClock startingNow() {
        return new MutableClock(System.currentTimeMillis());
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public long nanos() {
        return millis.get() * 1_000_000L;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
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
