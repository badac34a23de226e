package io.sluice.internal;

import org.slf4j.Logger;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs an event at most once per interval per topic, with the count of what it held back, so that an
 * attack or an outage never turns into one log line per request. Thread-safe.
 */
public final class ThrottledLog {
    private final Logger log;
    private final long intervalMillis;
    private final Clock clock;
    private final Map<String, long[]> lastLogged = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> suppressed = new ConcurrentHashMap<>();

    public ThrottledLog(Logger log, long intervalMillis) {
        this(log, intervalMillis, Clock.systemUTC());
    }

    public ThrottledLog(Logger log, long intervalMillis, Clock clock) {
        this.log = log;
        this.intervalMillis = intervalMillis;
        this.clock = clock;
    }

    /** Logs {@code message} (with the rule as topic) at WARN unless the topic was logged within the interval. */
    public void warn(String topic, String message) {
        if (!log.isWarnEnabled()) return;
        long now = clock.millis();
        long[] last = lastLogged.computeIfAbsent(topic, t -> new long[] {Long.MIN_VALUE / 2});
        AtomicLong held = suppressed.computeIfAbsent(topic, t -> new AtomicLong());
        synchronized (last) {
            if (now - last[0] < intervalMillis) {
                held.incrementAndGet();
                return;
            }
            last[0] = now;
        }
        long n = held.getAndSet(0);
        log.warn(n == 0 ? message : message + " (" + n + " similar events not logged)");
    }
}
