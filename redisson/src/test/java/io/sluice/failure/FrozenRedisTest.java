package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.engine.Deadlines;
import io.sluice.rule.Rule;
import io.sluice.rule.Settings;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The patience Sluice has with a busy server never hides a Redis that is really frozen (SIGSTOP, its sockets open):
 * every decision follows the failure policy within the hard bound ({@link Deadlines#hardBound}, 1 s for the default
 * 100 ms deadline), decisions in flight at the freeze included; the first made after it waits at least the deadline;
 * the breaker then skips Redis; and once Redis runs again, decisions are Redis's again.
 */
@Timeout(120)
class FrozenRedisTest {
    /** Scheduling noise on a loaded 2-core machine on top of the bound, for the client side of the measurement. */
    private static final long NOISE_MILLIS = 1_000;

    @Test
    void aFrozenRedisGetsTheFailurePolicyWithinTheHardBound() throws Exception {
        long hardBound = Deadlines.hardBound(Settings.DEFAULT_BACKEND_TIMEOUT).toMillis();
        try (RedisProcess redis = RedisProcess.start();
             Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.rules.r.rate", "1000/1m"))) {
            Connected.await(sluice);
            Rule rule = sluice.rules().get("r").orElseThrow();
            redis.freeze();
            try {
                // Eight at once (in flight together), then eight one after another.
                List<CompletableFuture<Admission>> together = new ArrayList<>();
                long began = System.nanoTime();
                for (int i = 0; i < 8; i++) {
                    together.add(sluice.admit(List.of(rule), KeySource.fixed("k" + i)).toCompletableFuture());
                }
                for (CompletableFuture<Admission> f : together) {
                    Decision d = f.get(30, TimeUnit.SECONDS).decisions().get(0);
                    assertThat(d.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
                    assertThat(d.allowed()).isTrue();
                }
                long togetherMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
                List<Long> one = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    long start = System.nanoTime();
                    Decision d = sluice.admit(List.of(rule), KeySource.fixed("s" + i)).toCompletableFuture()
                            .get(30, TimeUnit.SECONDS).decisions().get(0);
                    one.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    assertThat(d.outcome()).isNotEqualTo(Decision.Outcome.DECIDED);
                }
                System.out.println("frozen Redis: 8 decisions at once by the policy after " + togetherMillis
                        + " ms; one after another: " + one + " ms (hard bound " + hardBound + " ms)");
                assertThat(togetherMillis).isGreaterThanOrEqualTo(Settings.DEFAULT_BACKEND_TIMEOUT.toMillis() - 5)
                        .isLessThan(hardBound + NOISE_MILLIS);
                assertThat(one).allMatch(ms -> ms < hardBound + NOISE_MILLIS);
            } finally {
                redis.thaw();
            }
            await("Redis decides again").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> sluice.admit(List.of(rule), KeySource.fixed("after")).toCompletableFuture().join()
                            .decisions().get(0).outcome() == Decision.Outcome.DECIDED);
        }
    }
}
