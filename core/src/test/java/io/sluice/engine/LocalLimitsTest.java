package io.sluice.engine;

import io.sluice.Decision;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.spi.Entry;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * This server's share of a limit, decided in memory by the reference models on a hand-driven clock: the limit divided
 * by the servers (rounded down, at least 1), per algorithm, and the concurrency permits likewise.
 */
class LocalLimitsTest {
    private final MutableClock clock = new MutableClock(1_700_000_000_000L);
    private final AtomicInteger servers = new AtomicInteger(3);
    private final LocalLimits local = new LocalLimits(clock, servers::get);

    private static Rule rule(String... props) {
        Map<String, String> p = new java.util.HashMap<>();
        for (int i = 0; i < props.length; i += 2) p.put("sluice.rules.r." + props[i], props[i + 1]);
        p.put("sluice.rules.r.on-backend-failure", "local");
        return RuleParser.parse(p).get("r").orElseThrow();
    }

    private static RateRequest request(Rule rule, String key, long cost) {
        return rule.ratePolicy().request(key, rule.rate().orElseThrow(), cost);
    }

    /** How many of {@code tries} requests of cost 1 the share admits at one instant. */
    private long admittedAtOnce(Rule rule, String key, int tries) {
        long admitted = 0;
        for (int i = 0; i < tries; i++) {
            Decision d = local.rate(rule, request(rule, key, 1), rule.rate().orElseThrow().permits());
            assertThat(d.outcome()).isEqualTo(Decision.Outcome.FAILED_LOCAL);
            assertThat(d.limit()).as("the rule's limit is reported, not the share").isEqualTo(rule.rate().get().permits());
            if (d.allowed()) admitted++;
        }
        return admitted;
    }

    @ParameterizedTest(name = "{0} of {1} servers: {2}")
    @CsvSource({"10, 3, 3", "10, 1, 10", "2, 3, 1", "1, 10000, 1", "9, 3, 3", "100, 7, 14"})
    void theShareIsTheLimitDividedRoundedDownAndAtLeastOne(long limit, int n, long share) {
        assertThat(LocalLimits.share(limit, n)).isEqualTo(share);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window", "leaky-bucket"})
    void eachAlgorithmAdmitsItsShareAtOnceAndRejectsTheRest(String algorithm) {
        Rule rule = rule("rate", "30/1m", "algorithm", algorithm);
        // A leaky bucket queues nothing locally: one on pace, the next a pace (3 s for 10 a minute) later.
        long expected = algorithm.equals("leaky-bucket") ? 1 : 10;
        assertThat(admittedAtOnce(rule, "k", 25)).isEqualTo(expected);
        Decision rejected = local.rate(rule, request(rule, "k", 1), 30);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
        assertThat(admittedAtOnce(rule, "other", 25)).as("another key has a share of its own").isEqualTo(expected);
    }

    @Test
    void aSlidingLogShareFreesAsItsWindowSlides() {
        Rule rule = rule("rate", "9/1m");
        assertThat(admittedAtOnce(rule, "k", 5)).isEqualTo(3);
        Decision rejected = local.rate(rule, request(rule, "k", 1), 9);
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMinutes(1));
        clock.advance(Duration.ofSeconds(59));
        assertThat(admittedAtOnce(rule, "k", 5)).isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(admittedAtOnce(rule, "k", 5)).isEqualTo(3);
    }

    @Test
    void aTokenBucketShareRefillsAtItsShareOfTheRate() {
        Rule rule = rule("rate", "60/1m", "algorithm", "token-bucket", "burst", "30");
        assertThat(admittedAtOnce(rule, "k", 20)).as("a third of the burst").isEqualTo(10);
        // A third of the rate: one token every 3 s.
        clock.advance(Duration.ofMillis(2_999));
        assertThat(admittedAtOnce(rule, "k", 5)).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(admittedAtOnce(rule, "k", 5)).isOne();
    }

    @Test
    void softThrottlingKeepsItsOverageShareAndElasticBorrowsNothing() {
        Rule soft = rule("rate", "30/1m", "throttling", "soft", "overage", "20%");
        assertThat(admittedAtOnce(soft, "k", 25)).as("36 / 3").isEqualTo(12);
        Map<String, String> p = Map.of("sluice.rules.r.rate", "30/1m", "sluice.rules.r.throttling", "elastic",
                "sluice.rules.r.capacity", "cap", "sluice.rules.r.on-backend-failure", "local",
                "sluice.rules.cap.rate", "1000/1m", "sluice.rules.cap.key", "global");
        Rule elastic = RuleParser.parse(p).get("r").orElseThrow();
        assertThat(admittedAtOnce(elastic, "elastic-k", 25)).as("the nominal share only").isEqualTo(10);
    }

    @Test
    void aCostAboveTheShareNeverFitsAndWaitsAPeriod() {
        Rule rule = rule("rate", "10/1m", "algorithm", "fixed-window");
        Decision d = local.rate(rule, request(rule, "k", 4), 10);
        assertThat(d.allowed()).isFalse();
        assertThat(d.retryAfter()).isEqualTo(Duration.ofMinutes(1));
        assertThat(d.cost()).isEqualTo(4);
        assertThat(local.rate(rule, request(rule, "k", 3), 10).allowed()).isTrue();
    }

    /**
     * Issue 21 for the share: a log's share of {@code 9/10s} on 3 servers (3), A at 0 s, B at 5 s, A's permit given back
     * at 5 s: A's own entry leaves, B's counts until 15 s, so at 10.5 s exactly 2 are admitted (before: the newest entry,
     * B's, left, and 3 were).
     */
    @Test
    void aLogShareGivesBackTheRequestsOwnEntry() {
        Rule rule = rule("rate", "9/10s");
        AtomicReference<Entry> a = new AtomicReference<>();
        assertThat(local.rate(rule, request(rule, "k", 1), 9, a::set).allowed()).isTrue();
        assertThat(a.get()).as("the share names A's entry").isNotNull();
        clock.advance(Duration.ofSeconds(5));
        assertThat(local.rate(rule, request(rule, "k", 1), 9, entry -> { }).allowed()).isTrue();
        local.giveBack(rule, request(rule, "k", 1), a.get());
        clock.advance(Duration.ofMillis(5_500));
        assertThat(admittedAtOnce(rule, "k", 5)).as("B's permit counts until 15 s").isEqualTo(2);
        clock.advance(Duration.ofMillis(4_500));
        assertThat(admittedAtOnce(rule, "k", 5)).as("B's left at 15 s").isOne();
    }

    @Test
    void theDivisorIsReadAtEachDecision() {
        Rule rule = rule("rate", "12/1m", "algorithm", "fixed-window");
        servers.set(4);
        assertThat(admittedAtOnce(rule, "k", 10)).isEqualTo(3);
        servers.set(2);
        assertThat(admittedAtOnce(rule, "k", 10)).as("6 now, 3 taken").isEqualTo(3);
    }

    @Test
    void concurrencySharesHoldLimitOverNInFlightUntilReleased() {
        Rule rule = rule("concurrency", "7");
        List<LeaseRequest> held = new ArrayList<>();
        int admitted = 0;
        for (int i = 0; i < 5; i++) {
            LeaseRequest r = new LeaseRequest("c", 7, rule.lease(), Duration.ZERO);
            if (local.acquire(r)) {
                admitted++;
                held.add(r);
            }
        }
        assertThat(admitted).as("7 / 3").isEqualTo(2);
        // Held for as long as the request runs: no lease expires a local permit.
        clock.advance(Duration.ofHours(1));
        assertThat(local.acquire(new LeaseRequest("c", 7, rule.lease(), Duration.ZERO))).isFalse();
        local.release(held.get(0));
        assertThat(local.acquire(new LeaseRequest("c", 7, rule.lease(), Duration.ZERO))).isTrue();
        assertThat(local.acquire(new LeaseRequest("c", 7, rule.lease(), Duration.ZERO))).isFalse();
    }
}
