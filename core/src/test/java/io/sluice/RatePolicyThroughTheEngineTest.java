package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the engine does with a rule's {@code RatePolicy} today, before issue 13's engine wiring: it passes the
 * algorithm, burst, static cost and soft overage to the backend, holds an elastic rule at its nominal limit,
 * and keeps the attack shield to hard rules.
 */
class RatePolicyThroughTheEngineTest {
    private final MutableClock clock = new MutableClock(3_600_000L * 1000);

    private Sluice sluice(String... props) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        return Sluice.builder().properties(p).inMemory().clock(clock).ticker(clock).build();
    }

    private static Admission admit(Sluice s, String rule) {
        List<Rule> list = List.of(s.rules().get(rule).orElseThrow());
        return s.admit(list, KeySource.fixed("alice")).toCompletableFuture().join();
    }

    @Test
    void aTokenBucketRuleAdmitsItsBurstThenOneRequestPerToken() {
        try (Sluice s = sluice("sluice.rules.posts.rate", "10/1h", "sluice.rules.posts.algorithm", "token-bucket",
                "sluice.rules.posts.burst", "3")) {
            for (int left = 2; left >= 0; left--) assertThat(admit(s, "posts").headline().orElseThrow().remaining()).isEqualTo(left);
            Decision rejected = admit(s, "posts").headline().orElseThrow();
            assertThat(rejected.allowed()).isFalse();
            assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMinutes(6));
            clock.advance(Duration.ofMinutes(6));
            assertThat(admit(s, "posts").allowed()).isTrue();
            assertThat(admit(s, "posts").allowed()).isFalse();
        }
    }

    /**
     * A leaky bucket's queued request is admitted at its slot, not at once: its admission completes a pace
     * later (here 1 s per slot), while a request beyond the queue is rejected at once with the first free slot.
     */
    @Test
    void aQueuedLeakyBucketRequestIsAdmittedAtItsSlot() {
        try (Sluice s = sluice("sluice.rules.pace.rate", "1/1s", "sluice.rules.pace.algorithm", "leaky-bucket",
                "sluice.rules.pace.queue", "2")) {
            Rule rule = s.rules().get("pace").orElseThrow();
            assertThat(admitLater(s, rule).join().allowed()).isTrue();
            long start = System.nanoTime();
            CompletableFuture<Admission> second = admitLater(s, rule);
            CompletableFuture<Admission> third = admitLater(s, rule);
            Admission fourth = admitLater(s, rule).join();
            assertThat(fourth.allowed()).isFalse();
            assertThat(second).as("waits for its slot, a second away").isNotDone();
            assertThat(third).isNotDone();
            assertThat(second.join().allowed()).isTrue();
            assertThat(third.join().allowed()).isTrue();
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertThat(waited).as("the third slot is two paces away").isGreaterThanOrEqualTo(1_900);
        }
    }

    private static CompletableFuture<Admission> admitLater(Sluice s, Rule rule) {
        return s.admit(List.of(rule), KeySource.fixed("k")).toCompletableFuture();
    }

    @Test
    void aStaticCostTakesThatManyPermits() {
        try (Sluice s = sluice("sluice.rules.export.rate", "10/1h", "sluice.rules.export.algorithm", "fixed-window",
                "sluice.rules.export.cost", "4")) {
            assertThat(admit(s, "export").headline().orElseThrow().remaining()).isEqualTo(6);
            assertThat(admit(s, "export").headline().orElseThrow().remaining()).isEqualTo(2);
            assertThat(admit(s, "export").allowed()).isFalse();
        }
    }

    @Test
    void softThrottlingAdmitsTheOverageWithNominalHeadersAndNoShield() {
        try (Sluice s = sluice("sluice.rules.api.rate", "10/1m", "sluice.rules.api.algorithm", "sliding-window",
                "sluice.rules.api.throttling", "soft", "sluice.rules.api.overage", "20%")) {
            int admitted = 0;
            for (int i = 0; i < 20; i++) {
                Admission a = admit(s, "api");
                if (a.allowed()) admitted++;
                assertThat(a.headline().orElseThrow().limit()).isEqualTo(10);
                assertThat(a.headline().orElseThrow().remaining()).isGreaterThanOrEqualTo(0);
            }
            assertThat(admitted).isEqualTo(12);
            assertThat(s.stats().shieldedRejections()).isZero();
        }
    }

    @Test
    void anElasticRuleHoldsItsNominalLimitUntilTheEngineBorrows() {
        try (Sluice s = sluice("sluice.rules.api.rate", "5/1m", "sluice.rules.api.algorithm", "token-bucket",
                "sluice.rules.api.throttling", "elastic", "sluice.rules.api.capacity", "system",
                "sluice.rules.system.rate", "100/1m", "sluice.rules.system.key", "global")) {
            int admitted = 0;
            for (int i = 0; i < 10; i++) if (admit(s, "api").allowed()) admitted++;
            assertThat(admitted).isEqualTo(5);
        }
    }
}
