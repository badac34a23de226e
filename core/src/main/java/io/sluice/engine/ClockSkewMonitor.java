package io.sluice.engine;

import io.sluice.internal.ThrottledLog;
import io.sluice.spi.ServerClock;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Measures this server's wall clock against the backend's ({@code TIME} on Redis) at start and every minute,
 * and warns when the difference passes {@code sluice.max-clock-skew}: the sliding log and the leases are
 * stored on each server's own clock. A first measurement that fails (Redis down at start) is retried every
 * second, one retry pending at a time, until one succeeds. Thread-safe.
 */
final class ClockSkewMonitor {
    static final long MEASURE_EVERY_MILLIS = TimeUnit.MINUTES.toMillis(1);
    static final long RETRY_FIRST_AFTER_MILLIS = TimeUnit.SECONDS.toMillis(1);

    private final ServerClock backend;
    private final Clock clock;
    private final Ticker ticker;
    private final Duration max;
    private final EngineScheduler scheduler;
    private final ThrottledLog log;
    private final AtomicBoolean retryPending = new AtomicBoolean();
    private volatile Duration skew;

    ClockSkewMonitor(ServerClock backend, Clock clock, Ticker ticker, Duration max, EngineScheduler scheduler,
                     ThrottledLog log) {
        this.backend = backend;
        this.clock = clock;
        this.ticker = ticker;
        this.max = max;
        this.scheduler = scheduler;
        this.log = log;
    }

    void start() {
        scheduler.withFixedDelay(this::measure, 0, MEASURE_EVERY_MILLIS);
    }

    /** The last measurement; empty before the first one. */
    Optional<Duration> skew() {
        return Optional.ofNullable(skew);
    }

    private void measure() {
        long before = clock.millis();
        long sent = ticker.millis(); // the round trip on the ticker: a wall clock stepped meanwhile must not count
        backend.serverTimeMillis().whenComplete((server, e) -> {
            if (e != null) {
                // Redis down or slow at start: measure again soon rather than in a minute. One retry pending
                // at a time: the minutely measurement fails too while Redis is down, and must not start a
                // second chain of retries each minute.
                if (skew == null && retryPending.compareAndSet(false, true)) {
                    boolean scheduled = scheduler.later(() -> {
                        retryPending.set(false);
                        measure();
                    }, RETRY_FIRST_AFTER_MILLIS);
                    if (!scheduled) retryPending.set(false);
                }
                return;
            }
            long roundTrip = ticker.millis() - sent;
            Duration measured = Duration.ofMillis(before + roundTrip / 2 - server);
            skew = measured;
            if (measured.abs().compareTo(max) > 0) {
                log.warn("clock-skew", "This server's clock differs from Redis's by " + measured.toMillis()
                        + " ms, more than sluice.max-clock-skew (" + max.toMillis()
                        + " ms): windows and leases are measured with each server's own clock");
            }
        });
    }
}
