package io.sluice.examples.monitoring;

import io.sluice.examples.monitoring.Exposition.Series;
import io.sluice.examples.monitoring.PromQl.Parsed;
import io.sluice.examples.monitoring.PromQl.Selector;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of {@code examples/monitoring}: the Grafana dashboard's panel and variable queries and the
 * Prometheus alert rules, and what of it a scrape of {@code /metrics} does not answer. SnakeYAML (Redisson's
 * dependency) reads both files: JSON is YAML.
 */
final class MonitoringQueries {
    /** Relative to the examples module, where Maven runs its tests and tools. */
    static final Path DIR = Path.of("monitoring");
    static final Path DASHBOARD = DIR.resolve("sluice-dashboard.json");
    static final Path ALERTS = DIR.resolve("sluice-alerts.yml");
    /** Labels Prometheus adds to every series it scrapes ({@code job}, {@code instance}): never in /metrics. */
    static final Set<String> TARGET_LABELS = Set.of("job", "instance");
    /** A Grafana variable query {@code label_values(selector, label)}. */
    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((.*),\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)\\s*$");

    private MonitoringQueries() {
    }

    /**
     * One query and where it is: {@code expr} is PromQL; for a variable's {@code label_values(expr, label)},
     * {@code valuesOf} is the label whose values it lists, else null.
     */
    record Query(String where, String expr, String valuesOf) {
    }

    static Map<String, Object> dashboardJson() throws IOException {
        return new Yaml().load(Files.readString(DASHBOARD));
    }

    /** Every panel target's {@code expr} and every query variable's query, rows' nested panels included. */
    @SuppressWarnings("unchecked")
    static List<Query> dashboard(Map<String, Object> json) {
        List<Query> out = new ArrayList<>();
        for (Map<String, Object> panel : panels(json)) {
            for (Map<String, Object> target : (List<Map<String, Object>>) panel.getOrDefault("targets", List.of())) {
                out.add(new Query("panel '" + panel.get("title") + "' " + target.get("refId"), (String) target.get("expr"), null));
            }
        }
        Map<String, Object> templating = (Map<String, Object>) json.getOrDefault("templating", Map.of());
        for (Map<String, Object> variable : (List<Map<String, Object>>) templating.getOrDefault("list", List.of())) {
            if (!"query".equals(variable.get("type"))) continue;
            Object query = variable.get("query");
            String text = query instanceof Map<?, ?> m ? (String) m.get("query") : (String) query;
            String where = "variable $" + variable.get("name");
            Matcher m = LABEL_VALUES.matcher(text);
            if (!m.matches()) throw new IllegalArgumentException(where + ": expected label_values(selector, label): " + text);
            out.add(new Query(where, m.group(1), m.group(2)));
        }
        return out;
    }

    /** Every panel of the dashboard, the panels inside rows included, rows themselves not. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> panels(Map<String, Object> json) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> panel : (List<Map<String, Object>>) json.get("panels")) {
            if ("row".equals(panel.get("type"))) {
                out.addAll((List<Map<String, Object>>) panel.getOrDefault("panels", List.of()));
            } else {
                out.add(panel);
            }
        }
        return out;
    }

    /** Every rule's {@code expr}, named by its alert (or recording) name. */
    @SuppressWarnings("unchecked")
    static List<Query> alerts(String yaml) {
        Map<String, Object> root = new Yaml().load(yaml);
        List<Query> out = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) root.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                Object name = rule.containsKey("alert") ? rule.get("alert") : rule.get("record");
                out.add(new Query("alert " + name, (String) rule.get("expr"), null));
            }
        }
        return out;
    }

    /**
     * What the scrape does not answer, one line each: a selector no series matches (naming the metric when it
     * is missing altogether), a grouping or listed label that no series the query reads carries. Labels
     * Prometheus adds ({@link #TARGET_LABELS}) are not expected in the scrape. Empty when every query finds data.
     */
    static List<String> problems(List<Query> queries, List<Series> scrape) {
        List<String> out = new ArrayList<>();
        for (Query q : queries) {
            Parsed parsed = PromQl.parse(q.expr());
            if (parsed.selectors().isEmpty()) out.add(q.where() + " reads no metric: " + q.expr());
            List<Series> read = new ArrayList<>();
            for (Selector selector : parsed.selectors()) {
                List<Series> matched = scrape.stream().filter(selector::matches).toList();
                read.addAll(matched);
                if (!matched.isEmpty()) continue;
                Set<String> sameName = new TreeSet<>();
                scrape.stream().filter(s -> s.name().equals(selector.metric())).forEach(s -> sameName.add(s.labels().toString()));
                out.add(sameName.isEmpty()
                        ? q.where() + ": metric " + selector.metric() + " is not in /metrics (" + q.expr() + ")"
                        : q.where() + ": no series matches " + selector + "; /metrics has " + selector.metric() + " with " + sameName);
            }
            Set<String> labels = new TreeSet<>(parsed.groupingLabels());
            if (q.valuesOf() != null) labels.add(q.valuesOf());
            labels.removeAll(TARGET_LABELS);
            for (String label : labels) {
                if (!read.isEmpty() && read.stream().noneMatch(s -> s.labels().containsKey(label))) {
                    out.add(q.where() + ": label '" + label + "' is on none of the series it reads (" + q.expr() + ")");
                }
            }
        }
        return out;
    }

    /** The distinct series (name and labels) that the queries read in this scrape. */
    static Set<String> seriesRead(List<Query> queries, List<Series> scrape) {
        Set<String> out = new TreeSet<>();
        for (Query q : queries) {
            for (Selector selector : PromQl.parse(q.expr()).selectors()) {
                scrape.stream().filter(selector::matches).forEach(s -> out.add(s.toString()));
            }
        }
        return out;
    }
}
