package io.sluice.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rate decisions per second with callers as async requests in flight: one thread keeps {@code inFlight}
 * decisions outstanding, starting a new one as soon as one completes (a window, as an async server would).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
@Threads(1)
public class AsyncRateDecisionBenchmark {
    @Param({"1", "8", "64"})
    public int inFlight;

    @Param({"1"})
    public int keys;

    @Param({"allowed", "rejected"})
    public String traffic;

    private RateFixture fixture;
    private Semaphore window;
    private final AtomicLong failures = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        fixture = new RateFixture(RateDecisionBenchmark.systemOf(params), keys, traffic.equals("rejected"));
    }

    @Setup(Level.Iteration)
    public void openWindow() {
        window = new Semaphore(inFlight);
    }

    @TearDown(Level.Iteration)
    public void drainWindow() {
        window.acquireUninterruptibly(inFlight);
        if (failures.get() > 0) throw new IllegalStateException(failures.get() + " decisions failed");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fixture.close();
    }

    private void send(CompletionStage<?> decision) {
        decision.whenComplete((v, e) -> {
            if (e != null) failures.incrementAndGet();
            window.release();
        });
    }

    @Benchmark
    public void floorAsync() {
        window.acquireUninterruptibly();
        send(fixture.decideAsync(0));
    }

    @Benchmark
    public void tryAcquireAsync() {
        window.acquireUninterruptibly();
        send(fixture.decideAsync(fixture.key()));
    }

    @Benchmark
    public void tryAcquireAndAvailablePermitsAsync() {
        window.acquireUninterruptibly();
        send(fixture.decideAsync(fixture.key()));
    }

    @Benchmark
    public void bucket4jAsync() {
        window.acquireUninterruptibly();
        send(fixture.decideAsync(fixture.key()));
    }

    @Benchmark
    public void sluiceAsync() {
        window.acquireUninterruptibly();
        send(fixture.decideAsync(fixture.key()));
    }
}
