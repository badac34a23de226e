package io.sluice.examples.monitoring;

import io.sluice.examples.monitoring.Exposition.Series;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Just enough of PromQL to check a dashboard against a scrape: the series selectors of an expression (metric
 * name and label matchers) and its grouping labels ({@code by (...)}, {@code on (...)}, ...). Function and
 * aggregation names, keywords, numbers, durations, ranges and string arguments are skipped. A Grafana variable
 * ({@code $rule}, {@code ${rule}}) in a matcher's value stands for any value, as its "All" option does.
 */
final class PromQl {
    /** Followed by {@code (}: aggregation operators, whose {@code by}/{@code without} may come before it. */
    private static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "group", "stddev", "stdvar",
            "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");
    /** Followed by a parenthesised list of label names. */
    private static final Set<String> GROUPING = Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "atan2", "inf", "nan");
    private static final Pattern GRAFANA_VARIABLE = Pattern.compile("\\$\\{[^}]*}|\\$[a-zA-Z_][a-zA-Z0-9_]*|\\[\\[[^]]*]]");

    private PromQl() {
    }

    /** A label matcher: {@code label op "value"}, op one of {@code = != =~ !~}. */
    record LabelMatcher(String label, String op, String value) {
        /** As Prometheus matches: an absent label is the empty string, a regex matches the whole value. */
        boolean matches(Map<String, String> labels) {
            String actual = labels.getOrDefault(label, "");
            return switch (op) {
                case "=" -> actual.equals(value);
                case "!=" -> !actual.equals(value);
                case "=~" -> Pattern.matches(value, actual);
                case "!~" -> !Pattern.matches(value, actual);
                default -> throw new IllegalStateException(op);
            };
        }

        @Override
        public String toString() {
            return label + op + '"' + value + '"';
        }
    }

    /** A series selector: a metric name and its label matchers. */
    record Selector(String metric, List<LabelMatcher> matchers) {
        boolean matches(Series series) {
            return series.name().equals(metric) && matchers.stream().allMatch(m -> m.matches(series.labels()));
        }

        @Override
        public String toString() {
            return matchers.isEmpty() ? metric : metric + matchers.toString().replace('[', '{').replace(']', '}');
        }
    }

    /** What an expression reads: its selectors, and the labels it groups or matches by. */
    record Parsed(List<Selector> selectors, Set<String> groupingLabels) {
    }

    static Parsed parse(String expr) {
        return new Parser(expr).parse();
    }

    private static final class Parser {
        private final String s;
        private int i;
        private final List<Selector> selectors = new ArrayList<>();
        private final Set<String> grouping = new LinkedHashSet<>();

        Parser(String s) {
            this.s = s;
        }

        Parsed parse() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                } else if (c == '"' || c == '\'' || c == '`') {
                    string();
                } else if (c == '[') {
                    skipPast(']'); // a range or subquery: [5m], [$__rate_interval], [1h:1m]
                } else if (c == '$') {
                    grafanaVariable();
                } else if (c == '{') {
                    // A selector without a name: {__name__="..."} is not used by these files.
                    throw new IllegalArgumentException("selector without a metric name at " + i + " in " + s);
                } else if (Character.isDigit(c) || c == '.') {
                    while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
                } else if (Character.isLetter(c) || c == '_' || c == ':') {
                    identifier();
                } else {
                    i++; // an operator, a parenthesis or a comma
                }
            }
            return new Parsed(List.copyOf(selectors), Set.copyOf(grouping));
        }

        private void identifier() {
            int start = i;
            while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == ':')) i++;
            String word = s.substring(start, i);
            char next = nextNonSpace();
            if (GROUPING.contains(word)) {
                if (next == '(') labelList();
            } else if (next == '(' || AGGREGATIONS.contains(word) || KEYWORDS.contains(word.toLowerCase(Locale.ROOT))) {
                return; // a function or an operator; its arguments are read on
            } else {
                List<LabelMatcher> matchers = next == '{' ? matchers() : List.of();
                selectors.add(new Selector(word, matchers));
            }
        }

        /** {@code (a, b)} after by/without/on/ignoring/group_left/group_right. */
        private void labelList() {
            skipSpaces();
            int open = i;
            skipPast(')');
            for (String label : s.substring(open + 1, i - 1).split(",")) {
                if (!label.isBlank()) grouping.add(label.trim());
            }
        }

        private List<LabelMatcher> matchers() {
            skipSpaces();
            i++; // {
            List<LabelMatcher> out = new ArrayList<>();
            while (true) {
                skipSpaces();
                if (s.charAt(i) == '}') {
                    i++;
                    return out;
                }
                int start = i;
                while (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_') i++;
                String label = s.substring(start, i);
                skipSpaces();
                String op = s.startsWith("=~", i) || s.startsWith("!~", i) || s.startsWith("!=", i) ? s.substring(i, i + 2) : "=";
                if (!s.startsWith(op, i) || label.isEmpty()) {
                    throw new IllegalArgumentException("bad label matcher at " + start + " in " + s);
                }
                i += op.length();
                skipSpaces();
                String value = string();
                if (GRAFANA_VARIABLE.matcher(value).find()) {
                    // Whatever the variable holds: a negated one may exclude anything, so it is not checked.
                    if (op.startsWith("!")) continue;
                    value = GRAFANA_VARIABLE.matcher(op.equals("=") ? Pattern.quote(value) : value)
                            .replaceAll(op.equals("=") ? "\\\\E.*\\\\Q" : ".*");
                    op = "=~";
                }
                out.add(new LabelMatcher(label, op, value));
                skipSpaces();
                if (s.charAt(i) == ',') i++;
            }
        }

        /** A quoted string at i, unescaped; i moves past it. */
        private String string() {
            char quote = s.charAt(i++);
            StringBuilder out = new StringBuilder();
            while (s.charAt(i) != quote) {
                char c = s.charAt(i++);
                if (c == '\\' && quote != '`') {
                    char escaped = s.charAt(i++);
                    out.append(switch (escaped) {
                        case 'n' -> '\n';
                        case 't' -> '\t';
                        default -> escaped;
                    });
                } else {
                    out.append(c);
                }
            }
            i++;
            return out.toString();
        }

        private void grafanaVariable() {
            i++;
            if (i < s.length() && s.charAt(i) == '{') {
                skipPast('}');
            } else {
                while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) i++;
            }
        }

        private void skipPast(char close) {
            int end = s.indexOf(close, i);
            if (end < 0) throw new IllegalArgumentException("no '" + close + "' after " + i + " in " + s);
            i = end + 1;
        }

        private void skipSpaces() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        private char nextNonSpace() {
            int j = i;
            while (j < s.length() && Character.isWhitespace(s.charAt(j))) j++;
            return j < s.length() ? s.charAt(j) : 0;
        }
    }
}
