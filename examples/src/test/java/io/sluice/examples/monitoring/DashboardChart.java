package io.sluice.examples.monitoring;

import io.sluice.examples.ExampleApp;
import io.sluice.examples.monitoring.Exposition.Series;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StackedXYBarRenderer;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Draws what the main panels of {@code examples/monitoring/sluice-dashboard.json} show, from real data: it
 * starts the example app (embedded Redis), drives a minute of traffic (steady, with a burst over each rule's
 * limit), scrapes {@code /metrics} every second as Prometheus would, and computes what the panels' queries
 * compute: per rule, allowed and rejected requests per second ({@code rate(sluice_requests_total[...])}) and the
 * permits held ({@code sluice_permits_held}). One PNG, one panel per rule plus the permits.
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.sluice.examples.monitoring.DashboardChart -Dexec.args="$PWD/docs/images"
 * </pre>
 */
public final class DashboardChart {
    private static final Duration RUN = Duration.ofSeconds(60);
    private static final Duration SCRAPE_INTERVAL = Duration.ofSeconds(1);
    /** How long a demo image takes: with one started every 2 s, two are in flight in the steady phase. */
    private static final Duration IMAGE_DELAY = Duration.ofSeconds(4);
    /** Decisions get 1 s, not the example's 100 ms: a loaded machine would otherwise add failed_open noise. */
    private static final Map<String, String> SETTINGS = Map.of("sluice.backend-timeout", "1s");

    /** Steady: a new user posts 4 times a second (each within her limit). */
    private static final long STEADY_POST_MILLIS = 250;
    /** Burst: one user posts 20 times a second for 5 s, against her bucket of 5. */
    private static final long POST_BURST_FROM = 10_000;
    private static final long POST_BURST_TO = 15_000;
    private static final long POST_BURST_MILLIS = 50;
    /** Steady: a search every 7 s (under 10 a minute); burst: 20 in a second. */
    private static final long STEADY_SEARCH_MILLIS = 7_000;
    private static final long SEARCH_BURST_AT = 25_000;
    private static final int SEARCH_BURST = 20;
    /** Steady: an image every 2 s; burst: 6 at once, against 3 in flight. */
    private static final long STEADY_IMAGE_MILLIS = 2_000;
    private static final long IMAGE_BURST_AT = 40_000;
    private static final int IMAGE_BURST = 6;
    private static final int IMAGE_CONCURRENCY = 3;

    private static final Color ALLOWED = new Color(0x2e7d32);
    private static final Color REJECTED = new Color(0xc62828);
    private static final Color BURST = new Color(0x9e9e9e);
    private static final int WIDTH = 900;
    private static final int PANEL_HEIGHT = 150;

    private DashboardChart() {
    }

    /** One scrape: when (ms from the start) and its samples. */
    private record Scrape(long atMillis, List<Series> series) {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        File dir = new File(args.length > 0 ? args[0] : "docs/images");
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);
        List<Scrape> scrapes;
        try (ExampleApp.Running app = ExampleApp.start(0, null, IMAGE_DELAY, SETTINGS)) {
            ExampleTraffic traffic = new ExampleTraffic(app.port());
            traffic.awaitDecisionsByRedis();
            scrapes = run(traffic);
        }
        File png = new File(dir, "monitoring-dashboard-panels.png");
        ChartUtils.saveChartAsPNG(png, chart(scrapes), WIDTH, PANEL_HEIGHT * 4 + 110);
        System.out.println(png + ": " + scrapes.size() + " scrapes; " + totals(scrapes.get(scrapes.size() - 1)));
    }

    /** The traffic on its schedule, and a scrape every second, for {@link #RUN}; the scrapes in order. */
    private static List<Scrape> run(ExampleTraffic traffic) throws Exception {
        List<Scrape> scrapes = new ArrayList<>();
        ScheduledExecutorService senders = Executors.newScheduledThreadPool(8);
        long start = System.nanoTime();
        try {
            senders.scheduleAtFixedRate(() -> send(() -> traffic.post("user-" + System.nanoTime())),
                    0, STEADY_POST_MILLIS, TimeUnit.MILLISECONDS);
            for (long at = POST_BURST_FROM; at < POST_BURST_TO; at += POST_BURST_MILLIS) {
                senders.schedule(() -> send(() -> traffic.post("mallory")), at, TimeUnit.MILLISECONDS);
            }
            senders.scheduleAtFixedRate(() -> send(traffic::search), 0, STEADY_SEARCH_MILLIS, TimeUnit.MILLISECONDS);
            for (int i = 0; i < SEARCH_BURST; i++) {
                senders.schedule(() -> send(traffic::search), SEARCH_BURST_AT + i * 1_000L / SEARCH_BURST, TimeUnit.MILLISECONDS);
            }
            senders.scheduleAtFixedRate(() -> { traffic.imageAsync(); }, 0, STEADY_IMAGE_MILLIS, TimeUnit.MILLISECONDS);
            for (int i = 0; i < IMAGE_BURST; i++) senders.schedule(() -> { traffic.imageAsync(); }, IMAGE_BURST_AT, TimeUnit.MILLISECONDS);

            for (long due = 0; due <= RUN.toMillis(); due += SCRAPE_INTERVAL.toMillis()) {
                long wait = due - (System.nanoTime() - start) / 1_000_000;
                if (wait > 0) Thread.sleep(wait);
                long at = (System.nanoTime() - start) / 1_000_000;
                scrapes.add(new Scrape(at, Exposition.parse(traffic.metrics())));
            }
        } finally {
            senders.shutdownNow();
            senders.awaitTermination(10, TimeUnit.SECONDS);
        }
        return scrapes;
    }

    private interface Request {
        int send() throws Exception;
    }

    private static void send(Request request) {
        try {
            request.send();
        } catch (Exception e) {
            System.err.println("request failed: " + e);
        }
    }

    /** {@code sum(sluice_requests_total{rule=..., result=...})} in one scrape. */
    private static double requests(Scrape scrape, String rule, String result) {
        return scrape.series().stream()
                .filter(s -> s.name().equals("sluice_requests_total") && rule.equals(s.labels().get("rule"))
                        && result.equals(s.labels().get("result")))
                .mapToDouble(Series::value).sum();
    }

    private static double permitsHeld(Scrape scrape) {
        return scrape.series().stream()
                .filter(s -> s.name().equals("sluice_permits_held") && "images".equals(s.labels().get("rule")))
                .mapToDouble(Series::value).sum();
    }

    private static JFreeChart chart(List<Scrape> scrapes) {
        NumberAxis time = new NumberAxis("time (s)");
        time.setRange(0, RUN.toSeconds());
        CombinedDomainXYPlot combined = new CombinedDomainXYPlot(time);
        combined.setGap(12);
        combined.add(decisions(scrapes, "posts", POST_BURST_FROM), 1);
        combined.add(decisions(scrapes, "search", SEARCH_BURST_AT), 1);
        combined.add(decisions(scrapes, "images", IMAGE_BURST_AT), 1);
        combined.add(permits(scrapes), 1);
        LegendItemCollection legend = new LegendItemCollection();
        legend.add(new LegendItem("allowed", ALLOWED));
        legend.add(new LegendItem("rejected", REJECTED));
        legend.add(new LegendItem("a burst starts", BURST));
        legend.add(new LegendItem("the images rule's limit (3 in flight)", Color.DARK_GRAY));
        combined.setFixedLegendItems(legend);
        JFreeChart chart = new JFreeChart("Sluice dashboard, main panels: the example app's /metrics, scraped every second", new Font(Font.SANS_SERIF, Font.BOLD, 13), combined, true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** Stacked bars: allowed and rejected per second, the rate between two scrapes. */
    private static XYPlot decisions(List<Scrape> scrapes, String rule, long burstAtMillis) {
        XYSeries allowed = new XYSeries("allowed", true, false);
        XYSeries rejected = new XYSeries("rejected", true, false);
        for (int i = 1; i < scrapes.size(); i++) {
            Scrape before = scrapes.get(i - 1);
            Scrape after = scrapes.get(i);
            double seconds = (after.atMillis() - before.atMillis()) / 1000.0;
            double x = after.atMillis() / 1000.0;
            allowed.add(x, (requests(after, rule, "allowed") - requests(before, rule, "allowed")) / seconds);
            rejected.add(x, (requests(after, rule, "rejected") - requests(before, rule, "rejected")) / seconds);
        }
        DefaultTableXYDataset data = new DefaultTableXYDataset();
        data.addSeries(allowed);
        data.addSeries(rejected);
        data.setIntervalWidth(SCRAPE_INTERVAL.toMillis() / 1000.0);
        data.setIntervalPositionFactor(1.0); // a rate covers the interval before its scrape
        StackedXYBarRenderer bars = new StackedXYBarRenderer(0.1);
        bars.setBarPainter(new StandardXYBarPainter());
        bars.setShadowVisible(false);
        bars.setSeriesPaint(0, ALLOWED);
        bars.setSeriesPaint(1, REJECTED);
        XYPlot plot = plot(data, rule + ": req/s");
        plot.setRenderer(bars);
        plot.addDomainMarker(new ValueMarker(burstAtMillis / 1000.0, BURST, new BasicStroke(1.2f)));
        return plot;
    }

    /** The gauge as scraped, with the rule's limit. */
    private static XYPlot permits(List<Scrape> scrapes) {
        XYSeries held = new XYSeries("permits held", true, false);
        for (Scrape s : scrapes) held.add(s.atMillis() / 1000.0, permitsHeld(s));
        XYStepRenderer step = new XYStepRenderer();
        step.setSeriesPaint(0, new Color(0x1565c0));
        step.setSeriesStroke(0, new BasicStroke(2f));
        XYPlot plot = plot(new XYSeriesCollection(held), "images: permits");
        plot.setRenderer(step);
        plot.getRangeAxis().setRange(0, IMAGE_CONCURRENCY + 0.5);
        plot.addRangeMarker(new ValueMarker(IMAGE_CONCURRENCY, Color.DARK_GRAY, new BasicStroke(1.2f,
                BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 4f}, 0f)));
        plot.addDomainMarker(new ValueMarker(IMAGE_BURST_AT / 1000.0, BURST, new BasicStroke(1.2f)));
        return plot;
    }

    private static XYPlot plot(XYDataset data, String label) {
        NumberAxis axis = new NumberAxis(label);
        axis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        axis.setLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
        XYPlot plot = new XYPlot(data, null, axis, null);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return plot;
    }

    private static String totals(Scrape last) {
        StringBuilder sb = new StringBuilder();
        for (String rule : List.of("posts", "search", "images")) {
            sb.append(String.format(Locale.ROOT, "%s allowed %.0f rejected %.0f; ", rule,
                    requests(last, rule, "allowed"), requests(last, rule, "rejected")));
        }
        return sb.append("failed_open ").append(List.of("posts", "search", "images").stream()
                .mapToDouble(rule -> requests(last, rule, "failed_open")).sum()).toString();
    }
}
