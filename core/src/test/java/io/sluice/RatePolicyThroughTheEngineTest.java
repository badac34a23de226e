package io.sluice;

import io.sluice.http.LimitResponse;
import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the engine does with a rule's {@code RatePolicy}: it passes the algorithm, burst, cost and soft overage to
 * the backend, lets an elastic rule borrow from its capacity rule, answers a cost that can never fit, and keeps
 * the attack shield to hard rules.
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

    /**
     * Issue 21: a leaky-bucket capacity rule lends at its pace. The elastic rule's first request is within its limit;
     * the next borrow the capacity rule's slots, 0, 1 and 2 s away, and are admitted only when their slots come; one
     * more than the capacity rule's queue is rejected at once. Before: every borrowed request was admitted at once.
     */
    @Test
    void aLeakyBucketCapacityRuleLendsAtItsPace() {
        try (Sluice s = sluice("sluice.rules.api.rate", "1/1h", "sluice.rules.api.throttling", "elastic",
                "sluice.rules.api.overage", "1000%", "sluice.rules.api.capacity", "pace",
                "sluice.rules.pace.rate", "1/1s", "sluice.rules.pace.key", "global", "sluice.rules.pace.algorithm", "leaky-bucket",
                "sluice.rules.pace.queue", "2")) {
            Rule api = s.rules().get("api").orElseThrow();
            long start = System.nanoTime();
            List<CompletableFuture<Admission>> borrowed = new ArrayList<>();
            assertThat(admitLater(s, api).join().allowed()).as("within the limit").isTrue();
            for (int i = 0; i < 3; i++) borrowed.add(admitLater(s, api));
            assertThat(admitLater(s, api).join().allowed()).as("the capacity rule's queue is full").isFalse();
            for (CompletableFuture<Admission> b : borrowed) assertThat(b.join().allowed()).isTrue();
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertThat(waited).as("the third borrowed slot is two paces away").isGreaterThanOrEqualTo(1_900);
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

    /**
     * 5/1m elastic with 100% overage, its capacity rule 3/1m global: 5 on its own, then 3 borrowed, then none;
     * another key over its limit finds the capacity rule empty too, and a rejected borrower took nothing.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void anElasticRuleBorrowsFromItsCapacityRuleUntilItRunsOut(String algorithm) {
        try (Sluice s = sluice("sluice.rules.api.rate", "5/1m", "sluice.rules.api.algorithm", algorithm,
                "sluice.rules.api.throttling", "elastic", "sluice.rules.api.capacity", "system",
                "sluice.rules.system.rate", "3/1m", "sluice.rules.system.key", "global")) {
            List<Boolean> alice = new ArrayList<>();
            for (int i = 0; i < 10; i++) alice.add(admit(s, "api", "alice").allowed());
            assertThat(alice).containsExactly(true, true, true, true, true, true, true, true, false, false);
            Admission borrowed = admit(s, "api", "bob");
            assertThat(borrowed.allowed()).isTrue();
            for (int i = 0; i < 4; i++) assertThat(admit(s, "api", "bob").allowed()).isTrue();
            Admission rejected = admit(s, "api", "bob");
            assertThat(rejected.allowed()).as("the capacity rule has lent all it has").isFalse();
            Decision d = rejected.rejection().orElseThrow();
            assertThat(d.ruleName()).isEqualTo("api");
            assertThat(d.remaining()).isZero();
            // The capacity rule (a 3/1m sliding log, nothing elapsed on the test clock) frees a permit in 60 s, and
            // Retry-After is never before the key's own reset (a sliding window's: 80 s).
            assertThat(d.retryAfterSeconds()).as(algorithm).isEqualTo(Map.of("sliding-log", 60L, "token-bucket", 60L,
                    "fixed-window", 60L, "sliding-window", 80L).get(algorithm));
            // One bounded backend call per decision, however many keys an elastic decision touches.
            assertThat(s.stats().backendCalls()).isEqualTo(16);
            // Nothing was lent without being paid for: the capacity rule's own key is empty to a direct caller.
            assertThat(admit(s, "system", "*").allowed()).isFalse();
        }
    }

    /**
     * An elastic rule borrows from the capacity rule of the rules in effect: after a reload raises the capacity
     * rule from 1/1m to 3/1m, what it lent before still counts and two more can be lent.
     */
    @Test
    void anElasticRuleBorrowsFromTheCapacityRuleOfTheReloadedRules() {
        Map<String, String> before = Map.of("sluice.rules.api.rate", "2/1m", "sluice.rules.api.algorithm", "fixed-window",
                "sluice.rules.api.throttling", "elastic", "sluice.rules.api.capacity", "system",
                "sluice.rules.system.rate", "1/1m", "sluice.rules.system.key", "global",
                "sluice.rules.system.algorithm", "fixed-window");
        try (Sluice s = Sluice.builder().properties(before).inMemory().clock(clock).ticker(clock).build()) {
            List<Boolean> first = new ArrayList<>();
            for (int i = 0; i < 4; i++) first.add(admit(s, "api", "alice").allowed());
            assertThat(first).containsExactly(true, true, true, false);
            Map<String, String> after = new HashMap<>(before);
            after.put("sluice.rules.system.rate", "3/1m");
            s.reload(after);
            List<Boolean> second = new ArrayList<>();
            for (int i = 0; i < 4; i++) second.add(admit(s, "api", "bob").allowed());
            // bob: 2 of his own and 2 borrowed (the pool now has 3, alice took 1): his 100% overage.
            assertThat(second).containsExactly(true, true, true, true);
            assertThat(admit(s, "api", "carol").allowed()).isTrue();
            assertThat(admit(s, "api", "carol").allowed()).isTrue();
            assertThat(admit(s, "api", "carol").allowed()).as("the pool of 3 has lent 3").isFalse();
        }
    }

    /** A dry-run elastic rule never takes what enforcing rules may need from the capacity rule. */
    @Test
    void aDryRunElasticRuleNeverBorrows() {
        try (Sluice s = sluice("sluice.rules.api.rate", "2/1m", "sluice.rules.api.algorithm", "fixed-window",
                "sluice.rules.api.throttling", "elastic", "sluice.rules.api.capacity", "system",
                "sluice.rules.api.mode", "dry-run",
                "sluice.rules.system.rate", "1/1m", "sluice.rules.system.key", "global")) {
            List<Boolean> wouldAllow = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Admission a = admit(s, "api", "alice");
                assertThat(a.allowed()).as("dry-run never rejects").isTrue();
                wouldAllow.add(a.headline().orElseThrow().allowed());
            }
            assertThat(wouldAllow).containsExactly(true, true, false, false);
            assertThat(admit(s, "system", "*").allowed()).as("the capacity rule's permit is still there").isTrue();
        }
    }

    /** A capacity rule whose algorithm differs from the elastic rule's lends under its own algorithm. */
    @Test
    void theCapacityRuleCountsWithItsOwnAlgorithmAndCost() {
        try (Sluice s = sluice("sluice.rules.api.rate", "2/1m", "sluice.rules.api.algorithm", "fixed-window",
                "sluice.rules.api.throttling", "elastic", "sluice.rules.api.overage", "100%",
                "sluice.rules.api.capacity", "system",
                "sluice.rules.system.rate", "5/1m", "sluice.rules.system.key", "global",
                "sluice.rules.system.algorithm", "token-bucket")) {
            KeySource costly = KeySource.fixed("alice").withCost(2);
            assertThat(s.admit(List.of(rule(s, "api")), costly).toCompletableFuture().join().allowed()).isTrue();
            // Over the limit: 2 of the capacity rule's 5, then 2 more, then 1 left is not enough for 2.
            assertThat(s.admit(List.of(rule(s, "api")), costly).toCompletableFuture().join().allowed()).isTrue();
            assertThat(s.admit(List.of(rule(s, "api")), KeySource.fixed("bob").withCost(2)).toCompletableFuture().join().allowed()).isTrue();
            assertThat(s.admit(List.of(rule(s, "api")), KeySource.fixed("bob").withCost(2)).toCompletableFuture().join().allowed()).isTrue();
            assertThat(s.admit(List.of(rule(s, "api")), KeySource.fixed("carol").withCost(2)).toCompletableFuture().join().allowed()).isTrue();
            assertThat(s.admit(List.of(rule(s, "api")), KeySource.fixed("carol").withCost(2)).toCompletableFuture().join().allowed()).isFalse();
            assertThat(s.admit(List.of(rule(s, "system")), KeySource.fixed("*")).toCompletableFuture().join()
                    .headline().orElseThrow().remaining()).as("1 left, then taken by this call").isZero();
        }
    }

    /** A dynamic cost above what the rule ever admits: rejected, never shielding a request that fits. */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void aCostThatCanNeverFitIsRejectedAsSuchAndLeavesTheKeyUntouched(String algorithm) {
        try (Sluice s = sluice("sluice.rules.x.rate", "10/1m", "sluice.rules.x.algorithm", algorithm)) {
            Rule x = rule(s, "x");
            Admission big = s.admit(List.of(x), KeySource.fixed("alice").withCost(50)).toCompletableFuture().join();
            Decision d = big.rejection().orElseThrow();
            assertThat(d.neverFits()).isTrue();
            assertThat(d.cost()).isEqualTo(50);
            assertThat(d.retryAfterSeconds()).as("the rule's period").isEqualTo(60);
            assertThat(LimitResponse.problem(d)).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\","
                    + "\"status\":429,\"detail\":\"This request costs 50 permits, more than rule 'x' ever admits; it can never"
                    + " be admitted.\",\"violated-policies\":[\"x\"]}");
            assertThat(LimitExceededException.of(d)).hasMessage(
                    "Rule 'x' can never admit this call: it costs 50 permits, more than the rule ever admits");
            Admission fits = s.admit(List.of(x), KeySource.fixed("alice").withCost(10)).toCompletableFuture().join();
            assertThat(fits.allowed()).isTrue();
            assertThat(fits.headline().orElseThrow().remaining()).isZero();
            assertThat(fits.headline().orElseThrow().cost()).isEqualTo(10);
            assertThat(s.stats().shieldedRejections()).isZero();
        }
    }

    /** A static cost above capacity is refused at start-up, naming property, value and the most it may be. */
    @Test
    void aStaticCostThatCanNeverFitFailsStartUp() {
        assertThatThrownBy(() -> sluice("sluice.rules.x.rate", "10/1m", "sluice.rules.x.costs", "/big=11"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.rules.x.costs = \"/big=11\": expected costs of at most 10");
        assertThatThrownBy(() -> sluice("sluice.rules.x.rate", "10/1m", "sluice.rules.x.algorithm", "token-bucket",
                "sluice.rules.x.burst", "3", "sluice.rules.x.cost", "4"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.rules.x.cost = \"4\": expected a cost of at most 3");
    }

    @Test
    void aCapacityRuleMayNotBeElasticItself() {
        assertThatThrownBy(() -> sluice("sluice.rules.a.rate", "5/1m", "sluice.rules.a.throttling", "elastic",
                "sluice.rules.a.capacity", "b", "sluice.rules.b.rate", "5/1m", "sluice.rules.b.key", "global",
                "sluice.rules.b.throttling", "elastic", "sluice.rules.b.capacity", "c",
                "sluice.rules.c.rate", "5/1m", "sluice.rules.c.key", "global"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.rules.a.capacity = \"b\": expected the name of another rule with key global"
                        + " and a rate; rule b is elastic itself");
    }

    private static Rule rule(Sluice s, String name) {
        return s.rules().get(name).orElseThrow();
    }

    private static Admission admit(Sluice s, String rule, String key) {
        return s.admit(List.of(rule(s, rule)), KeySource.fixed(key)).toCompletableFuture().join();
    }
}
