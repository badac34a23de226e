package io.sluice.rule;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations of the rules file: {@code 500ms}, {@code 30s}, {@code 1m}, {@code 1h}, {@code 1d} or ISO-8601. */
public final class Durations {
    static final String EXPECTED = "a duration such as 500ms, 30s, 1m, 1h, 1d or PT1H";
    private static final Pattern SHORT = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * The duration, or empty when the text is not a duration. Negative durations are not durations, nor are
     * durations too long to be counted in milliseconds (every user of a duration calls {@code toMillis()}).
     */
    public static Optional<Duration> parse(String text) {
        Optional<Duration> d = parseAny(text);
        try {
            d.ifPresent(Duration::toMillis);
            return d;
        } catch (ArithmeticException tooLong) {
            return Optional.empty();
        }
    }

    private static Optional<Duration> parseAny(String text) {
        String t = text.trim();
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return Optional.of(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            });
        }
        if (t.length() > 1 && (t.charAt(0) == 'P' || t.charAt(0) == 'p')) {
            try {
                Duration d = Duration.parse(t);
                return d.isNegative() ? Optional.empty() : Optional.of(d);
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Shortest form that reads back as the same duration, for messages and key names. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000L == 0 && ms > 0) return ms / 86_400_000L + "d";
        if (ms % 3_600_000L == 0 && ms > 0) return ms / 3_600_000L + "h";
        if (ms % 60_000L == 0 && ms > 0) return ms / 60_000L + "m";
        if (ms % 1_000L == 0 && ms > 0) return ms / 1_000L + "s";
        return ms + "ms";
    }
}
