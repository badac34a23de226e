package io.sluice.examples.monitoring;

import io.sluice.examples.EmbeddedRedis;
import io.sluice.examples.ExampleApp;
import io.sluice.examples.monitoring.Exposition.Series;
import io.sluice.examples.monitoring.MonitoringQueries.Query;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.embedded.RedisServer;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every series the Grafana dashboard and the Prometheus alert rules of {@code examples/monitoring} query is in
 * the example app's real {@code /metrics}, after real traffic on a real Redis: posts allowed and rejected,
 * searches past a rule and a dry-run rule, image generations holding concurrency permits, then Redis stopped,
 * so that decisions follow each rule's failure policy and the circuit breaker opens. A meter that disappears
 * or is renamed, or a query that misspells a metric, a label value or a grouping label, fails here naming it.
 */
@Timeout(180)
class DashboardSeriesTest {
    /**
     * The example's rules, plus what the dashboard shows and the example does not have: a search rule that
     * fails closed, and a dry-run rule. Decisions get 2 s rather than 100 ms, so that a loaded machine does not
     * turn the healthy part of the run into failure-policy decisions.
     */
    private static final Map<String, String> SETTINGS = Map.of(
            "sluice.backend-timeout", "2s",
            "sluice.rules.search.on-backend-failure", "deny",
            "sluice.rules.search-preview.paths", "/api/search",
            "sluice.rules.search-preview.key", "ip",
            "sluice.rules.search-preview.rate", "5/1m",
            "sluice.rules.search-preview.mode", "dry-run");

    private static RedisServer redis;
    private static ExampleApp.Running app;
    private static ExampleTraffic traffic;
    /** Taken while three image generations hold the images rule's three permits. */
    private static List<Series> whileImagesRun;
    /** Taken at the end: healthy traffic, then traffic with Redis stopped and the breaker open. */
    private static List<Series> scrape;

    @BeforeAll
    static void driveTrafficAndScrape() throws Exception {
        redis = EmbeddedRedis.start();
        app = ExampleApp.start(0, EmbeddedRedis.address(redis), Duration.ofSeconds(2), SETTINGS);
        traffic = new ExampleTraffic(app.port());
        traffic.awaitDecisionsByRedis();

        List<Integer> posts = new ArrayList<>();
        for (int i = 0; i < 6; i++) posts.add(traffic.post("alice"));
        assertThat(posts).containsExactly(201, 201, 201, 201, 201, 429);
        for (int i = 0; i < 13; i++) traffic.search();

        List<CompletableFuture<Integer>> images = new ArrayList<>();
        for (int i = 0; i < 5; i++) images.add(traffic.imageAsync());
        await("three image permits held").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> permitsHeld(Exposition.parse(traffic.metrics())) == 3);
        whileImagesRun = Exposition.parse(traffic.metrics());
        List<Integer> imageStatuses = new ArrayList<>();
        for (CompletableFuture<Integer> image : images) imageStatuses.add(image.get());
        assertThat(imageStatuses).containsExactlyInAnyOrder(200, 200, 200, 429, 429);

        // Redis gone: posts fail open (the rule's default allow), searches fail closed, and after 5 consecutive
        // failures the breaker opens.
        redis.stop();
        await("the circuit breaker open").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(10)).until(() -> {
            traffic.post("someone-" + System.nanoTime());
            traffic.search();
            return Exposition.parse(traffic.metrics()).stream()
                    .anyMatch(s -> s.name().equals("sluice_circuit_open") && s.value() == 1);
        });
        scrape = Exposition.parse(traffic.metrics());
    }

    @AfterAll
    static void stop() {
        if (app != null) app.close();
        EmbeddedRedis.stopQuietly(redis);
    }

    private static double permitsHeld(List<Series> series) {
        return series.stream().filter(s -> s.name().equals("sluice_permits_held") && "images".equals(s.labels().get("rule")))
                .mapToDouble(Series::value).sum();
    }

    @Test
    void everyDashboardQueryFindsItsSeriesInTheExampleMetrics() throws Exception {
        List<Query> queries = MonitoringQueries.dashboard(MonitoringQueries.dashboardJson());
        assertThat(queries).hasSizeGreaterThanOrEqualTo(15);
        assertThat(MonitoringQueries.problems(queries, scrape)).as("dashboard queries without data in /metrics").isEmpty();
        report("dashboard", queries);
    }

    @Test
    void everyAlertRuleFindsItsSeriesInTheExampleMetrics() throws Exception {
        List<Query> queries = MonitoringQueries.alerts(Files.readString(MonitoringQueries.ALERTS));
        assertThat(queries).hasSizeGreaterThanOrEqualTo(6);
        assertThat(MonitoringQueries.problems(queries, scrape)).as("alert rules without data in /metrics").isEmpty();
        report("alert rules", queries);
    }

    /** The run produced every kind of series the dashboard is about, with the values it should show. */
    @Test
    void theRunProducedEveryKindOfSeries() {
        Set<String> results = resultsOf(scrape);
        assertThat(results).contains("allowed", "rejected", "dry_run_rejected", "failed_open", "failed_closed");
        assertThat(scrape).anyMatch(s -> s.name().equals("sluice_shield_rejections_total") && s.value() >= 1);
        assertThat(scrape).anyMatch(s -> s.name().equals("sluice_backend_calls_seconds_count")
                && !"success".equals(s.labels().get("outcome")) && s.value() >= 1);
        assertThat(permitsHeld(whileImagesRun)).isEqualTo(3);
        assertThat(permitsHeld(scrape)).isZero();
    }

    private static Set<String> resultsOf(List<Series> series) {
        Set<String> out = new TreeSet<>();
        series.stream().filter(s -> s.name().equals("sluice_requests_total")).forEach(s -> out.add(s.labels().get("result")));
        return out;
    }

    private static void report(String what, List<Query> queries) {
        Set<String> read = MonitoringQueries.seriesRead(queries, scrape);
        long sluiceSeries = scrape.stream().filter(s -> s.name().startsWith("sluice_")).count();
        System.out.println(what + ": " + queries.size() + " queries read " + read.size() + " of the " + sluiceSeries
                + " sluice_* series in /metrics");
    }
}
