package io.sluice.benchmarks;

import io.sluice.redisson.RedissonBackend;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
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
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYSeries;
import org.redisson.api.RedissonClient;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.File;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Draws how each rate algorithm answers the same traffic, from real runs against Redis (on Redis {@code TIME},
 * as in production): one PNG per traffic pattern, one panel per algorithm, admitted and rejected requests per
 * time slice. The rule is {@code 10/1s} for every algorithm ({@code token-bucket} burst 10,
 * {@code leaky-bucket} queue 5; a leaky-bucket request is drawn when it proceeds, after its delay).
 *
 * <pre>
 * mvn -B -pl benchmarks -am -DskipTests package
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.AlgorithmCharts docs/images
 * </pre>
 * Uses the Redis of {@link BenchRedis} (its own embedded one unless {@code sluice.bench.redis} names one).
 */
public final class AlgorithmCharts {
    private static final long LIMIT = 10;
    private static final Duration PERIOD = Duration.ofSeconds(1);
    private static final long LEAKY_QUEUE = 5;
    private static final Color ADMITTED = new Color(0x2e7d32);
    private static final Color REJECTED = new Color(0xc62828);
    private static final int WIDTH = 900;
    private static final int PANEL_HEIGHT = 150;

    private AlgorithmCharts() {
    }

    /** One request of the traffic: when it is sent, in ms from the start. */
    private record Sent(long atMillis, Map<Algorithm, RateOutcome> answers) {
    }

    /** A traffic pattern and how it is drawn. */
    private record Scenario(String file, String title, List<Long> sendAtMillis, long durationMillis, long sliceMillis,
                            long startOffsetMillis) {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        File dir = new File(args.length > 0 ? args[0] : "docs/images");
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);
        RedissonClient redisson = BenchRedis.client();
        RedissonBackend backend = new RedissonBackend(redisson, false, Clock.systemUTC(), Duration.ofSeconds(5));
        try {
            for (Scenario s : List.of(steadyOverload(), burstAcrossABoundary())) {
                List<Sent> run = run(backend, s);
                File png = new File(dir, s.file());
                ChartUtils.saveChartAsPNG(png, chart(s, run), WIDTH, PANEL_HEIGHT * Algorithm.values().length + 110);
                System.out.println(png + ": " + summary(run));
            }
        } finally {
            backend.close();
            BenchRedis.release();
        }
    }

    /** 20 requests a second, evenly spaced, for 6 s: twice what the rule admits. */
    private static Scenario steadyOverload() {
        List<Long> at = new ArrayList<>();
        for (long t = 0; t < 6_000; t += 50) at.add(t);
        return new Scenario("algorithms-steady-overload.png",
                "Steady 2x overload: 20 requests/s against 10/1s (bars: 250 ms)",
                at, 6_000, 250, 0);
    }

    /**
     * Quiet for 1.5 s, then 40 requests in 200 ms centred on a second boundary of Redis time (where fixed
     * windows turn), then one request every 100 ms.
     */
    private static Scenario burstAcrossABoundary() {
        List<Long> at = new ArrayList<>();
        for (long t = 1_400; t < 1_600; t += 5) at.add(t);
        for (long t = 1_700; t < 3_500; t += 100) at.add(t);
        // Starts 0.5 s after a second boundary, so the burst's middle (1.5 s in) is on one.
        return new Scenario("algorithms-boundary-burst.png",
                "Burst across a window boundary: 40 requests in 200 ms around a second boundary, against 10/1s (bars: 50 ms)",
                at, 3_500, 50, 500);
    }

    private static List<Sent> run(RedissonBackend backend, Scenario s) throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        Map<Algorithm, RateRequest> requests = new EnumMap<>(Algorithm.class);
        for (Algorithm a : Algorithm.values()) {
            RateRequest r = RateRequest.of(a, "sluice:{charts-" + run + ":" + a.id() + "}", LIMIT, PERIOD);
            if (a == Algorithm.LEAKY_BUCKET) r = r.withQueue(LEAKY_QUEUE);
            requests.put(a, r);
        }
        // Connected and warm (the first call connects; each script is loaded once), then start on Redis time:
        // at the next second boundary plus the scenario's offset.
        for (RateRequest r : requests.values()) backend.tryConsume(r.withKey(r.key() + ":warm-up")).toCompletableFuture().join();
        long redisNow = backend.serverTimeMillis().toCompletableFuture().get(5, TimeUnit.SECONDS);
        long toBoundary = 1_000 - Math.floorMod(redisNow, 1_000) + s.startOffsetMillis();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(toBoundary);
        List<Sent> sent = new ArrayList<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (long at : s.sendAtMillis()) {
            long due = start + TimeUnit.MILLISECONDS.toNanos(at);
            while (System.nanoTime() < due) LockSupport.parkNanos(Math.max(1_000, (due - System.nanoTime()) / 2));
            Map<Algorithm, RateOutcome> answers = new EnumMap<>(Algorithm.class);
            Sent one = new Sent(at, answers);
            for (Algorithm a : Algorithm.values()) {
                pending.add(backend.tryConsume(requests.get(a)).toCompletableFuture().thenAccept(o -> {
                    synchronized (answers) {
                        answers.put(a, o);
                    }
                }));
            }
            sent.add(one);
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        return sent;
    }

    private static JFreeChart chart(Scenario s, List<Sent> run) {
        NumberAxis time = new NumberAxis("time (s)");
        time.setRange(0, s.durationMillis() / 1000.0);
        CombinedDomainXYPlot combined = new CombinedDomainXYPlot(time);
        combined.setGap(12);
        long slices = s.durationMillis() / s.sliceMillis() + 1;
        double limitPerSlice = LIMIT * (double) s.sliceMillis() / PERIOD.toMillis();
        for (Algorithm a : Algorithm.values()) {
            double[] admitted = new double[(int) slices];
            double[] rejected = new double[(int) slices];
            for (Sent one : run) {
                RateOutcome o = one.answers().get(a);
                long when = one.atMillis() + (o.allowed() ? o.delayMillis() : 0);
                int slice = (int) Math.min(slices - 1, when / s.sliceMillis());
                if (o.allowed()) admitted[slice]++;
                else rejected[slice]++;
            }
            XYSeries in = new XYSeries("admitted", true, false);
            XYSeries out = new XYSeries("rejected", true, false);
            for (int i = 0; i < slices; i++) {
                double x = (i * s.sliceMillis() + s.sliceMillis() / 2.0) / 1000.0;
                in.add(x, admitted[i]);
                out.add(x, rejected[i]);
            }
            DefaultTableXYDataset data = new DefaultTableXYDataset();
            data.addSeries(in);
            data.addSeries(out);
            data.setIntervalWidth(s.sliceMillis() / 1000.0);
            data.setIntervalPositionFactor(0.5);
            StackedXYBarRenderer bars = new StackedXYBarRenderer(0.1);
            bars.setBarPainter(new StandardXYBarPainter());
            bars.setShadowVisible(false);
            bars.setSeriesPaint(0, ADMITTED);
            bars.setSeriesPaint(1, REJECTED);
            NumberAxis count = new NumberAxis(a.id());
            count.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
            count.setLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
            XYPlot plot = new XYPlot(data, null, count, bars);
            plot.setBackgroundPaint(Color.WHITE);
            plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
            ValueMarker limit = new ValueMarker(limitPerSlice, Color.DARK_GRAY, new BasicStroke(1.2f,
                    BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 4f}, 0f));
            plot.addRangeMarker(limit);
            // Second boundaries of Redis time, where fixed windows turn: the run started startOffset after one.
            long first = PERIOD.toMillis() - s.startOffsetMillis() % PERIOD.toMillis();
            for (long boundary = first; boundary < s.durationMillis(); boundary += PERIOD.toMillis()) {
                plot.addDomainMarker(new ValueMarker(boundary / 1000.0, new Color(0x9e9e9e), new BasicStroke(0.8f)));
            }
            combined.add(plot, 1);
        }
        LegendItemCollection legend = new LegendItemCollection();
        legend.add(new LegendItem("admitted", ADMITTED));
        legend.add(new LegendItem("rejected", REJECTED));
        legend.add(new LegendItem("the limit's share of a bar", Color.DARK_GRAY));
        legend.add(new LegendItem("second boundary of Redis time (fixed windows turn)", new Color(0x9e9e9e)));
        combined.setFixedLegendItems(legend);
        JFreeChart chart = new JFreeChart(s.title(), new Font(Font.SANS_SERIF, Font.BOLD, 13), combined, true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    private static String summary(List<Sent> run) {
        StringBuilder sb = new StringBuilder();
        for (Algorithm a : Algorithm.values()) {
            long admitted = run.stream().filter(one -> one.answers().get(a).allowed()).count();
            sb.append(a.id()).append(' ').append(admitted).append('/').append(run.size()).append("  ");
        }
        return sb.toString().trim();
    }
}
