package io.sluice.rule;

import java.time.Duration;
import java.util.Optional;

/**
 * At most {@code permits} requests per {@code period}, counted over a sliding window.
 *
 * @param permits requests admitted per window, at least 1
 * @param period  the window, at least 1 ms
 */
public record Rate(long permits, Duration period) {
    static final String EXPECTED = "<permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms";

    public Rate {
        if (permits < 1) throw new IllegalArgumentException("permits must be at least 1: " + permits);
        if (period.toMillis() < 1) throw new IllegalArgumentException("period must be at least 1ms: " + period);
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
        if (permits < 1 || period.isEmpty() || period.get().toMillis() < 1) return Optional.empty();
        return Optional.of(new Rate(permits, period.get()));
    }

    @Override
    public String toString() {
        return permits + "/" + Durations.format(period);
    }
}
