package io.sluice.benchmarks;

import io.sluice.spi.Algorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.redisson.api.RedissonClient;
import org.redisson.config.TransportMode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every benchmark runs once, very briefly, in this JVM, so none of them rots: each system answers and the
 * Sluice ones decide as they should. The real runs are in BENCHMARKS.md.
 */
class BenchmarksSmokeTest {
    static {
        // Every benchmark runs in this JVM: let them share one Redisson client instead of one each.
        System.setProperty("sluice.bench.keep-client", "true");
    }

    private static Collection<RunResult> jmh(String include, String... params) throws RunnerException {
        OptionsBuilder o = new OptionsBuilder();
        o.include(include).forks(0).warmupIterations(0).measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(150)).threads(2).shouldFailOnError(true)
                .timeout(TimeValue.seconds(60));
        for (int i = 0; i < params.length; i += 2) o.param(params[i], params[i + 1].split(","));
        Options options = o.build();
        return new Runner(options).run();
    }

    private static Set<String> names(Collection<RunResult> results) {
        return results.stream().map(r -> r.getParams().getBenchmark().replaceFirst(".*\\.", "")).collect(Collectors.toSet());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void rateDecisionBenchmarksRun() throws RunnerException {
        Collection<RunResult> results = jmh("\\.RateDecisionBenchmark\\.", "keys", "1,50", "traffic", "allowed,rejected");
        assertThat(names(results)).containsExactlyInAnyOrder("floor", "tryAcquire", "tryAcquireAndAvailablePermits", "bucket4j", "sluice");
        assertThat(results).hasSize(5 * 4); // floor ignores its params, but JMH runs every method per param set
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getScore()).isPositive());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void asyncRateDecisionBenchmarksRun() throws RunnerException {
        Collection<RunResult> results = jmh("\\.AsyncRateDecisionBenchmark\\.", "inFlight", "8", "traffic", "allowed,rejected");
        assertThat(names(results)).containsExactlyInAnyOrder(
                "floorAsync", "tryAcquireAsync", "tryAcquireAndAvailablePermitsAsync", "bucket4jAsync", "sluiceAsync");
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getScore()).isPositive());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrencyAndInProcessBenchmarksRun() throws RunnerException {
        Collection<RunResult> results = jmh("\\.(ConcurrencyBenchmark|InProcessBenchmark)\\.");
        assertThat(names(results)).containsExactlyInAnyOrder("sluiceAcquireRelease", "redissonSemaphoreAcquireRelease", "filterOneRequest");
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getScore()).isPositive());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theQuietRoundTripRunsOnBothTransports() throws InterruptedException {
        List<RedissonClient> clients = new ArrayList<>();
        List<QuietRoundTrip.Variant> variants = QuietRoundTrip.open(List.of("nio", "epoll"), List.of("sluice", "try-acquire"), 50, clients);
        try {
            assertThat(clients).extracting(c -> c.getConfig().getTransportMode()).containsExactly(TransportMode.NIO, TransportMode.EPOLL);
            Map<String, List<QuietRoundTrip.Slice>> slices = QuietRoundTrip.run(variants, 2, 50, 1, 150);
            assertThat(slices).containsOnlyKeys("sluice-nio", "try-acquire-nio", "sluice-epoll", "try-acquire-epoll");
            assertThat(slices.values()).allSatisfy(s -> assertThat(s).singleElement().satisfies(slice -> {
                assertThat(slice.perSecond()).isPositive();
                assertThat(slice.cpuMicros()).isPositive();
            }));
        } finally {
            variants.forEach(QuietRoundTrip.Variant::close);
            clients.forEach(RedissonClient::shutdown);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theOverloadBenchmarkRuns() throws Exception {
        String row = Overload.row(Overload.Options.parse("--callers", "4", "--seconds", "1", "--rate", "200/1s"), "token-bucket", "auto");
        assertThat(row).startsWith("| token-bucket | 1 | auto | 4 |").endsWith("| 0 | – |");
        String shared = Overload.row(Overload.Options.parse("--servers", "3", "--callers", "6", "--seconds", "1", "--rate", "200/1s"),
                "sliding-log", "auto");
        assertThat(shared).startsWith("| sliding-log | 3 | auto | 6 |").endsWith("| 0 | – |");
        // A fixed window's cross-check: no window over its limit, nothing counted outside the steady window.
        String fixed = Overload.row(Overload.Options.parse("--callers", "4", "--seconds", "1", "--rate", "200/1s"), "fixed-window", "off");
        assertThat(fixed).startsWith("| fixed-window | 1 | off | 4 |").matches(".*\\| 0 \\| [0-9,]+; 0 over; 0 outside( \\([0-9,]+ unplaced\\))? \\|$");
        String most = fixed.replaceFirst(".*\\| 0 \\| ([0-9,]+); .*", "$1").replace(",", "");
        assertThat(Long.parseLong(most)).isBetween(1L, 200L);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theHttpBenchmarkRunsEveryScenario() throws Exception {
        List<HttpBenchmark.Cell> cells = HttpBenchmark.run(new HttpBenchmark.Options(List.of(2), 0.3, 300, 1), line -> { });
        assertThat(cells).extracting(HttpBenchmark.Cell::scenario).containsExactly("none", "naive", "sluice");
        assertThat(cells).allSatisfy(c -> {
            assertThat(c.saturated().requests()).isPositive();
            assertThat(c.saturated().non2xx()).isZero();
            assertThat(c.openLoop().requests()).as("300 req/s for 0.3 s").isEqualTo(90);
            assertThat(c.openLoop().non2xx()).isZero();
        });
        assertThat(HttpBenchmark.summary(cells)).contains("| 2 | sluice |");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void perUserStateIsMeasuredAndExpires() {
        List<RedisMemory.Usage> usage = RedisMemory.measure();
        assertThat(usage).hasSize(4);
        assertThat(usage.get(0).keys()).hasSize(3).allSatisfy(k -> {
            assertThat(k.bytes()).isPositive();
            assertThat(k.ttlMillis()).isBetween(3_500_000L, 4_050_001L);
        });
        assertThat(usage.get(2).keys()).isNotEmpty().allSatisfy(k -> assertThat(k.ttlMillis()).isPositive());
        // The permit released: no lease, no tombstone (the release found its permit); the free count expires.
        assertThat(usage.get(3).keys()).as("a concurrency key without permits taken").singleElement().satisfies(k -> {
            assertThat(k.name()).doesNotContain(":timeout").doesNotContain(":released");
            assertThat(k.ttlMillis()).isBetween(1L, 60_000L);
        });
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void algorithmCostMeasuresEveryAlgorithmWithOneScriptPerDecision() {
        for (Algorithm a : Algorithm.values()) {
            AlgorithmCost.Cost c = AlgorithmCost.measure(a, 500);
            assertThat(c.sequential().scriptsPerDecision()).as(a.id()).isBetween(0.99, 1.05);
            // 64 in flight over 10 000 keys: decisions for different keys share script calls (one lane per algorithm).
            assertThat(c.concurrent().scriptsPerDecision()).as(a.id()).isGreaterThan(0.0).isLessThan(0.5);
            assertThat(c.sequential().redisCpuMicros()).as(a.id()).isPositive();
            // One key's state after one decision: a few hundred bytes for sliding-log, under 200 for the others.
            assertThat(c.bytesPerKey()).as(a.id()).isBetween(50.0, a == Algorithm.SLIDING_LOG ? 1000.0 : 200.0);
        }
    }
}
