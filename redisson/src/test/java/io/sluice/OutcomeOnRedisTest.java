package io.sluice;

import io.sluice.rule.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sluice.CallerClockEngine.admit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code count} and settlements through the whole engine on a real Redis, time injected: the scripts' charge mode
 * puts a key in debt exactly, parallel settlements charge exactly what was reported (the counter read back from
 * Redis), and parallel failures never pass a count=failure limit while successes never use it up.
 */
class OutcomeOnRedisTest {
    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(1);

    private Sluice sluice(String... props) {
        return engines.build(props);
    }

    /** Issue 24's example on Redis: 7 admitted, settled to 21 000 of 20 000; the 8th waits 360 s for 2 000 tokens. */
    @Test
    void theMeteredExampleGoesIntoDebtOnRedis() {
        try (Sluice s = sluice("sluice.rules.llm.rate", "20000/1h", "sluice.rules.llm.algorithm", "token-bucket",
                "sluice.rules.llm.cost", "1000")) {
            for (int i = 1; i <= 7; i++) {
                Admission a = admit(s, "llm", "acme");
                assertThat(a.allowed()).as("request " + i).isTrue();
                assertThat(a.headline().orElseThrow().remaining()).isEqualTo(20000 - 3000L * (i - 1) - 1000);
                a.settle("llm", 3000).toCompletableFuture().join();
                a.close();
            }
            Admission eighth = admit(s, "llm", "acme");
            assertThat(eighth.allowed()).isFalse();
            assertThat(eighth.rejection().orElseThrow().retryAfter()).isEqualTo(Duration.ofSeconds(360));
            assertThat(eighth.rejection().orElseThrow().retryAfterSeconds()).isEqualTo(360);
            engines.clock().advance(Duration.ofSeconds(360));
            Admission ninth = admit(s, "llm", "acme");
            assertThat(ninth.allowed()).isTrue();
            assertThat(ninth.headline().orElseThrow().remaining()).isZero();
        }
    }

    /** A fixed window in debt is rejected until its window ends; a sliding window until the debt slides out. */
    @Test
    void windowsInDebtRejectUntilTheWindowFrees() {
        try (Sluice s = sluice("sluice.rules.rows.rate", "100/1h", "sluice.rules.rows.algorithm", "fixed-window",
                "sluice.rules.rows.cost", "10", "sluice.rules.slide.rate", "100/1h", "sluice.rules.slide.algorithm",
                "sliding-window", "sluice.rules.slide.cost", "10")) {
            Admission a = admit(s, "rows", "k");
            a.settle("rows", 250).toCompletableFuture().join();
            Admission next = admit(s, "rows", "k");
            assertThat(next.allowed()).isFalse();
            assertThat(next.rejection().orElseThrow().retryAfter()).isEqualTo(Duration.ofMillis(CallerClockEngine.HOUR - 1));
            Admission b = admit(s, "slide", "k");
            b.settle("slide", 150).toCompletableFuture().join();
            assertThat(admit(s, "slide", "k").allowed()).isFalse();
            engines.clock().advance(Duration.ofMillis(CallerClockEngine.HOUR - 1));
            assertThat(admit(s, "rows", "k").allowed()).as("a new window").isTrue();
            // 150 of the last window, weighted by the overlap: 150 x 1.0 at its end, then less as it slides.
            assertThat(admit(s, "slide", "k").allowed()).isFalse();
            engines.clock().advance(Duration.ofMinutes(30));
            // 150 x 0.5 = 75, + 10 fits 100.
            assertThat(admit(s, "slide", "k").allowed()).isTrue();
        }
    }

    /**
     * 40 parallel requests of estimate 100 each settle at their own actual cost (some more, some less, one twice): the
     * fixed window's counter in Redis is exactly the sum reported, never more.
     */
    @Test
    void parallelSettlementsChargeExactlyWhatWasReported() throws Exception {
        int callers = 40;
        try (Sluice s = sluice("sluice.rules.rows.rate", "1000000/1h", "sluice.rules.rows.algorithm", "fixed-window",
                "sluice.rules.rows.cost", "100")) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<Long>> charged = new ArrayList<>();
            try {
                for (int i = 0; i < callers; i++) {
                    long actual = i * 37L % 250;
                    charged.add(pool.submit(() -> {
                        Admission a = admit(s, "rows", "shared");
                        assertThat(a.allowed()).isTrue();
                        CompletableFuture<Void> first = a.settle("rows", actual).toCompletableFuture();
                        CompletableFuture<Void> again = a.settle("rows", actual + 1000).toCompletableFuture();
                        CompletableFuture.allOf(first, again).join();
                        a.close();
                        return actual;
                    }));
                }
                long sum = 0;
                for (Future<Long> f : charged) sum += f.get();
                String state = engines.redisson().<String>getBucket(onlyKey(), StringCodec.INSTANCE).get();
                assertThat(state).endsWith(":" + sum);
                System.out.println("OutcomeOnRedisTest: " + callers + " settlements, reported " + sum + ", Redis holds " + state);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private String onlyKey() {
        List<String> keys = new ArrayList<>();
        // The servers' announcements (prefetch=auto divides a limit's share among them) are not a key's state.
        engines.redisson().getKeys().getKeysByPattern(engines.prefix() + "*").forEach(k -> {
            if (!k.endsWith(":servers")) keys.add(k);
        });
        assertThat(keys).hasSize(1);
        return keys.get(0);
    }

    /**
     * {@code 5/15m} counting failures: 100 successes from 4 threads (never 5 in flight) are all admitted and leave the
     * key untouched, then 30 parallel failures: exactly 5 pass the check.
     */
    @Test
    void parallelFailuresNeverPassTheLimitAndSuccessesNeverUseItUp() throws Exception {
        try (Sluice s = sluice("sluice.rules.login.rate", "5/15m", "sluice.rules.login.count", "failure")) {
            ExecutorService pool = Executors.newFixedThreadPool(30);
            try {
                AtomicInteger admittedSuccesses = new AtomicInteger();
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 25; i++) {
                            Admission a = admit(s, "login", "alice|203.0.113.7");
                            if (a.allowed()) admittedSuccesses.incrementAndGet();
                            else System.out.println("OutcomeOnRedisTest: a success rejected by " + a.rejection().orElseThrow());
                            a.end(Ending.status(200)).toCompletableFuture().join();
                            a.close();
                        }
                    }));
                }
                for (Future<?> f : done) f.get();
                assertThat(admittedSuccesses).hasValue(100);
                CyclicBarrier together = new CyclicBarrier(30);
                List<Future<Boolean>> failures = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    failures.add(pool.submit(() -> {
                        together.await();
                        Admission a = admit(s, "login", "alice|203.0.113.7");
                        a.end(Ending.status(401)).toCompletableFuture().join();
                        a.close();
                        return a.allowed();
                    }));
                }
                int passed = 0;
                for (Future<Boolean> f : failures) if (f.get()) passed++;
                assertThat(passed).isEqualTo(5);
                Admission after = admit(s, "login", "alice|203.0.113.7");
                assertThat(after.allowed()).isFalse();
                System.out.println("OutcomeOnRedisTest: 100 of 100 successes admitted, then " + passed + " of 30 parallel failures");
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
