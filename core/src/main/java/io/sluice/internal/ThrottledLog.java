package io.sluice.internal;

import io.sluice.engine.Ticker;
import java.lang.System.Logger;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs an event at most once per interval per topic, with the count of what it held back, so that an
 * attack or an outage never turns into one log line per request. The interval runs on the monotonic
 * {@link Ticker}: a wall clock stepped back would otherwise silence a topic for as long. Thread-safe.
 *
 * <p>A {@code System.Logger} for the same reason as {@link Log}: so the log names the Sluice code that warned.
 */
public final class ThrottledLog implements Logger {
    private final Log log;
    private final long intervalMillis;
    private final Ticker ticker;
    private final Map<String, long[]> lastLogged = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> suppressed = new ConcurrentHashMap<>();

    public ThrottledLog(Log log, long intervalMillis) {
        this(log, intervalMillis, Ticker.SYSTEM);
    }

    public ThrottledLog(Log log, long intervalMillis, Ticker ticker) {
        this.log = log;
        this.intervalMillis = intervalMillis;
        this.ticker = ticker;
    }

    /** Logs {@code message} (with the rule as topic) at WARN unless the topic was logged within the interval. */
    public void warn(String topic, String message) {
        if (!log.isWarnEnabled()) return;
        long now = ticker.millis();
        long[] last = lastLogged.computeIfAbsent(topic, t -> new long[] {now - intervalMillis});
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

    @Override
    public String getName() {
        return log.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
        return log.isLoggable(level);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
        log.log(level, bundle, message, thrown);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        log.log(level, bundle, format, params);
    }
}
