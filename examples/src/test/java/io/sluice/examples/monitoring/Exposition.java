package io.sluice.examples.monitoring;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The samples of a Prometheus text exposition (what {@code /metrics} serves), as a scraper reads them. */
final class Exposition {
    /** {@code name{label="value",...} number}, or {@code name number}. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})?\\s+(\\S+)(\\s+\\S+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private Exposition() {
    }

    /** One sample: a metric name, its labels (in name order) and its value. */
    record Series(String name, Map<String, String> labels, double value) {
        @Override
        public String toString() {
            return labels.isEmpty() ? name : name + labels;
        }
    }

    /** Every sample of a scrape, in the order served; comment lines and blank lines are skipped. */
    static List<Series> parse(String text) {
        List<Series> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) continue;
            Matcher m = SAMPLE.matcher(trimmed);
            if (!m.matches()) throw new IllegalArgumentException("not a Prometheus sample line: " + line);
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) labels.put(l.group(1), l.group(2));
            }
            out.add(new Series(m.group(1), Collections.unmodifiableMap(labels), value(m.group(4))));
        }
        return out;
    }

    /** A sample value: a Go float as Prometheus writes it ({@code +Inf}, {@code -Inf}, {@code NaN} included). */
    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }
}
