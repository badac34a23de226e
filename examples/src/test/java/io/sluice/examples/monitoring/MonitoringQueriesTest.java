package io.sluice.examples.monitoring;

import io.sluice.examples.monitoring.Exposition.Series;
import io.sluice.examples.monitoring.MonitoringQueries.Query;
import io.sluice.examples.monitoring.PromQl.Parsed;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The check {@link DashboardSeriesTest} runs on a real scrape, here on a fixed one (no Redis): it passes on a
 * complete scrape, and fails naming the query and the metric when a meter is missing or a query misspells a
 * metric, a label value or a grouping label. Also the dashboard's wiring to its Prometheus datasource variable.
 */
class MonitoringQueriesTest {
    /** Every kind of Sluice series, as the example app serves them after the run of DashboardSeriesTest. */
    private static final String COMPLETE = """
            # TYPE sluice_requests_total counter
            sluice_requests_total{result="allowed",rule="posts",type="rate"} 6.0
            sluice_requests_total{result="rejected",rule="posts",type="rate"} 1.0
            sluice_requests_total{result="failed_open",rule="posts",type="rate"} 3.0
            sluice_requests_total{result="failed_closed",rule="search",type="rate"} 3.0
            sluice_requests_total{result="dry_run_rejected",rule="search-preview",type="rate"} 8.0
            sluice_requests_total{result="allowed",rule="images",type="concurrency"} 3.0
            sluice_requests_total{result="rejected",rule="images",type="concurrency"} 2.0
            sluice_shield_rejections_total{rule="posts"} 1.0
            sluice_backend_calls_seconds_count{outcome="success"} 30
            sluice_backend_calls_seconds_sum{outcome="success"} 0.25
            sluice_backend_calls_seconds_max{outcome="success"} 0.1
            sluice_backend_calls_seconds_count{outcome="timeout"} 5
            sluice_backend_calls_seconds_sum{outcome="timeout"} 10.0
            sluice_backend_calls_seconds_max{outcome="timeout"} 2.0
            sluice_circuit_open 1.0
            sluice_permits_held{rule="images"} 0.0
            """;

    @Test
    void readsSelectorsAndGroupingLabelsOutOfPromQl() {
        Parsed p = PromQl.parse("sum by (rule, result) (rate(sluice_requests_total{job=~\"$job\", rule=~\"$rule\","
                + " result!=\"allowed\"}[$__rate_interval])) / on (rule) group_left max(sluice_permits_held) > 0.5 and bool 1");
        assertThat(p.selectors()).hasToString("[sluice_requests_total{job=~\".*\", rule=~\".*\", result!=\"allowed\"},"
                + " sluice_permits_held]");
        assertThat(p.groupingLabels()).containsExactlyInAnyOrder("rule", "result");
        Series posts = Exposition.parse("sluice_requests_total{result=\"rejected\",rule=\"posts\",type=\"rate\"} 7.0").get(0);
        assertThat(p.selectors().get(0).matches(posts)).isTrue();
        assertThat(PromQl.parse("sluice_requests_total{result=\"allowed\"}").selectors().get(0).matches(posts)).isFalse();
        assertThat(PromQl.parse("sluice_requests_total{result=~\"rej.*\"}").selectors().get(0).matches(posts)).isTrue();
        assertThat(PromQl.parse("sluice_requests_total{result=~\"rej\"}").selectors().get(0).matches(posts)).isFalse();
    }

    @Test
    void theCommittedFilesFindEverySeriesOfACompleteScrape() throws Exception {
        assertThat(MonitoringQueries.problems(dashboard(), Exposition.parse(COMPLETE))).isEmpty();
        assertThat(MonitoringQueries.problems(alerts(), Exposition.parse(COMPLETE))).isEmpty();
    }

    @Test
    void aMissingMeterFailsNamingItAndEveryQueryOnIt() throws Exception {
        List<Series> withoutCircuit = Exposition.parse(COMPLETE.replaceAll("(?m)^sluice_circuit_open.*$", ""));
        assertThat(MonitoringQueries.problems(alerts(), withoutCircuit))
                .singleElement().asString().startsWith("alert SluiceCircuitOpen: metric sluice_circuit_open is not in /metrics");
        assertThat(MonitoringQueries.problems(dashboard(), withoutCircuit)).hasSize(2)
                .anyMatch(p -> p.startsWith("panel 'Circuit breaker' A: metric sluice_circuit_open is not in /metrics"))
                .anyMatch(p -> p.startsWith("variable $job: metric sluice_circuit_open is not in /metrics"));
    }

    @Test
    void aMisspelledMetricFails() throws Exception {
        String json = Files.readString(MonitoringQueries.DASHBOARD).replace("sluice_permits_held", "sluice_permit_held");
        List<Query> queries = MonitoringQueries.dashboard(new Yaml().load(json));
        assertThat(MonitoringQueries.problems(queries, Exposition.parse(COMPLETE))).singleElement().asString()
                .startsWith("panel 'Permits held by rule' A: metric sluice_permit_held is not in /metrics");
    }

    @Test
    void aMisspelledLabelValueFails() throws Exception {
        List<Query> queries = MonitoringQueries.alerts(Files.readString(MonitoringQueries.ALERTS)
                .replace("result=\"failed_closed\"", "result=\"fail_closed\""));
        assertThat(MonitoringQueries.problems(queries, Exposition.parse(COMPLETE))).singleElement().asString()
                .startsWith("alert SluiceFailingClosed: no series matches sluice_requests_total{result=\"fail_closed\"};"
                        + " /metrics has sluice_requests_total with");
    }

    @Test
    void aMisspelledGroupingLabelFails() throws Exception {
        List<Query> queries = MonitoringQueries.alerts(Files.readString(MonitoringQueries.ALERTS)
                .replace("sum by (job, instance) (rate(sluice_backend_calls_seconds_count[5m]))",
                        "sum by (job, instance, outcomes) (rate(sluice_backend_calls_seconds_count[5m]))"));
        assertThat(MonitoringQueries.problems(queries, Exposition.parse(COMPLETE))).singleElement().asString()
                .startsWith("alert SluiceBackendFailing: label 'outcomes' is on none of the series it reads");
    }

    /** Importable anywhere: every panel and query reads the datasource the Prometheus variable picks. */
    @Test
    @SuppressWarnings("unchecked")
    void everyPanelReadsThePrometheusDatasourceVariable() throws Exception {
        Map<String, Object> json = MonitoringQueries.dashboardJson();
        List<Map<String, Object>> variables = (List<Map<String, Object>>) ((Map<String, Object>) json.get("templating")).get("list");
        assertThat(variables).anySatisfy(v -> assertThat(v).containsEntry("name", "datasource")
                .containsEntry("type", "datasource").containsEntry("query", "prometheus"));
        Map<String, Object> variable = Map.of("type", "prometheus", "uid", "${datasource}");
        List<Map<String, Object>> panels = MonitoringQueries.panels(json);
        assertThat(panels).hasSizeGreaterThanOrEqualTo(12).allSatisfy(panel -> {
            assertThat(panel.get("datasource")).as("datasource of panel %s", panel.get("title")).isEqualTo(variable);
            assertThat((List<Map<String, Object>>) panel.get("targets")).isNotEmpty()
                    .allSatisfy(t -> assertThat(t.get("datasource")).isEqualTo(variable));
        });
        assertThat(variables).filteredOn(v -> "query".equals(v.get("type")))
                .allSatisfy(v -> assertThat(v.get("datasource")).isEqualTo(variable));
    }

    private static List<Query> dashboard() throws Exception {
        return MonitoringQueries.dashboard(MonitoringQueries.dashboardJson());
    }

    private static List<Query> alerts() throws Exception {
        return MonitoringQueries.alerts(Files.readString(MonitoringQueries.ALERTS));
    }
}
