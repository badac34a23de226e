package io.sluice.rule;

import java.time.Duration;
import java.util.Optional;

/**
 * At most {@code permits} requests per {@code period}, counted over a sliding window.
 *
 * @param permits requests admitted per window, from 1 to {@link #MAX_PERMITS}
 * @param period  the window, from 1 ms to {@link #MAX_PERIOD}
 */
public record Rate(long permits, Duration period) {
    /**
     * The most permits a rate, a cost, a burst or a queue may name: every script computes with them (and with a
     * 1000% overage on top) exactly in Lua's doubles, and a log entry's permits fit its 32-bit field.
     */
    public static final long MAX_PERMITS = 1_000_000_000L;
    /**
     * The longest period: a bucket's state is now plus up to 101 periods in microseconds, which stays below 2^53
     * (exact in Lua's doubles) until about the year 2150, and every key's TTL stays a whole number of milliseconds.
     */
    public static final Duration MAX_PERIOD = Duration.ofDays(366);
    static final String RANGES = "permits from 1 to " + MAX_PERMITS + ", a period from 1ms to " + Durations.format(MAX_PERIOD);
    static final String EXPECTED = "<permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms (" + RANGES + ")";

    public Rate {
        if (permits < 1 || permits > MAX_PERMITS) throw new IllegalArgumentException("permits must be from 1 to " + MAX_PERMITS + ": " + permits);
        if (period.toMillis() < 1 || period.compareTo(MAX_PERIOD) > 0) {
            throw new IllegalArgumentException("period must be from 1ms to " + Durations.format(MAX_PERIOD) + ": " + period);
        }
    }

    /** Parses {@code 10/1h}, {@code 100/s} (a bare unit means one of it), {@code 5/PT10S}. */
    public static Optional<Rate> parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        if (slash <= 0 || slash == t.length() - 1) return Optional.empty();
        String count = t.substring(0, slash).trim();
        String per = t.substring(slash + 1).trim();
        if (!count.matches("\\d{1,18}")) return Optional.empty();
        long permits = Long.parseLong(count);
        if (per.matches("ms|s|m|h|d")) per = "1" + per;
        Optional<Duration> period = Durations.parse(per);
        if (permits < 1 || permits > MAX_PERMITS || period.isEmpty() || period.get().toMillis() < 1
                || period.get().compareTo(MAX_PERIOD) > 0) {
            return Optional.empty();
        }
        return Optional.of(new Rate(permits, period.get()));
    }

    @Override
    public String toString() {
        return permits + "/" + Durations.format(period);
    }
}
