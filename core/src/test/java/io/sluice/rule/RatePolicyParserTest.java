package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The rule properties of issue 13: algorithm, burst, queue, throttling, overage, capacity, cost, costs. */
class RatePolicyParserTest {
    private static final String ALGORITHMS =
            "expected one of sliding-log, token-bucket, leaky-bucket, fixed-window, sliding-window";
    private static final String CAPACITY = "expected the name of another rule with key global and a rate";
    private static final String COSTS = "expected comma-separated <url-pattern>=<cost> such as /api/export/*=10, /api/search=2 (each cost from 1 to 1000000000)";

    private static Map<String, String> props(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static List<String> problems(String... kv) {
        ConfigException e = catchThrowableOfType(() -> RuleParser.parse(props(kv)), ConfigException.class);
        assertThat(e).as("a ConfigException").isNotNull();
        return e.problems();
    }

    private static RatePolicy policy(String rule, String... kv) {
        return RuleParser.parse(props(kv)).get(rule).orElseThrow().ratePolicy();
    }

    @Test
    void aRuleWithoutThesePropertiesIsTodaysHardSlidingLogAtCostOne() {
        RatePolicy p = policy("a", "sluice.rules.a.rate", "10/1h");
        assertThat(p).isEqualTo(RatePolicy.DEFAULT);
        assertThat(p.algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
        assertThat(p.throttling()).isEqualTo(Throttling.HARD);
        assertThat(p.cost()).isEqualTo(1);
        assertThat(p.effectiveLimit(10)).isEqualTo(10);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "leaky-bucket", "fixed-window", "sliding-window", "Token-Bucket"})
    void everyAlgorithmIsAccepted(String name) {
        assertThat(policy("a", "sluice.rules.a.rate", "10/1h", "sluice.rules.a.algorithm", name).algorithm().id())
                .isEqualTo(name.toLowerCase());
    }

    @Test
    void anUnknownAlgorithmIsAnError() {
        assertThat(problems("sluice.rules.a.rate", "10/1h", "sluice.rules.a.algorithm", "gcra"))
                .containsExactly("sluice.rules.a.algorithm = \"gcra\": " + ALGORITHMS);
        assertThat(problems("sluice.rules.a.rate", "10/1h", "sluice.rules.a.algorithm", ""))
                .containsExactly("sluice.rules.a.algorithm = \"\": " + ALGORITHMS);
    }

    @Test
    void burstBelongsToTokenBucketsOnly() {
        RatePolicy p = policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.burst", "25");
        assertThat(p.burstFor(10)).isEqualTo(25);
        assertThat(policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket").burstFor(10))
                .isEqualTo(10);
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.burst", "25"))
                .containsExactly("sluice.rules.a.burst = \"25\": expected burst only with algorithm=token-bucket");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "fixed-window", "sluice.rules.a.burst", "25"))
                .containsExactly("sluice.rules.a.burst = \"25\": expected burst only with algorithm=token-bucket");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket", "sluice.rules.a.burst", "0"))
                .containsExactly("sluice.rules.a.burst = \"0\": expected a whole number of requests from 1 to 1000 (100 times the rate's permits, at most 1000000000) such as 20");
    }

    @Test
    void queueBelongsToLeakyBucketsOnly() {
        assertThat(policy("a", "sluice.rules.a.rate", "10/1s", "sluice.rules.a.algorithm", "leaky-bucket",
                "sluice.rules.a.queue", "5").queue()).isEqualTo(5);
        assertThat(policy("a", "sluice.rules.a.rate", "10/1s", "sluice.rules.a.algorithm", "leaky-bucket").queue()).isZero();
        assertThat(problems("sluice.rules.a.rate", "10/1s", "sluice.rules.a.algorithm", "token-bucket", "sluice.rules.a.queue", "5"))
                .containsExactly("sluice.rules.a.queue = \"5\": expected queue only with algorithm=leaky-bucket");
        assertThat(problems("sluice.rules.a.rate", "10/1s", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.queue", "-1"))
                .containsExactly("sluice.rules.a.queue = \"-1\": expected a whole number of waiting requests from 0 to 1000 (100 times the rate's permits, at most 1000000000) such as 5");
    }

    @Test
    void softThrottlingDefaultsToTenPercentAndElasticToAHundred() {
        RatePolicy soft = policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "soft");
        assertThat(soft.overagePercent()).isEqualTo(10);
        assertThat(soft.effectiveLimit(10)).isEqualTo(11);
        RatePolicy twenty = policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "soft",
                "sluice.rules.a.overage", "20%");
        assertThat(twenty.effectiveLimit(10)).isEqualTo(12); // the contract's example: 12 a minute
        assertThat(twenty.effectiveLimit(7)).isEqualTo(8);   // rounded down
        RatePolicy elastic = policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "elastic",
                "sluice.rules.a.capacity", "system", "sluice.rules.system.rate", "1000/1m", "sluice.rules.system.key", "global");
        assertThat(elastic.overagePercent()).isEqualTo(100);
        assertThat(elastic.effectiveLimit(10)).isEqualTo(20);
        assertThat(elastic.capacity()).contains("system");
    }

    @Test
    void overageNeedsSoftOrElasticAndAPercentage() {
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.overage", "20%")).containsExactly(
                "sluice.rules.a.overage = \"20%\": expected overage only with throttling=soft or throttling=elastic");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "hard", "sluice.rules.a.overage", "20%"))
                .containsExactly("sluice.rules.a.overage = \"20%\": expected overage only with throttling=soft or throttling=elastic");
        for (String bad : List.of("20", "0%", "1001%", "-5%", "lots")) {
            assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "soft", "sluice.rules.a.overage", bad))
                    .containsExactly("sluice.rules.a.overage = \"" + bad + "\": expected a percentage from 1% to 1000% such as 20%");
        }
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "gentle"))
                .containsExactly("sluice.rules.a.throttling = \"gentle\": expected hard, soft or elastic");
    }

    @Test
    void elasticNeedsACapacityRuleThatIsGlobalAndHasARate() {
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "elastic")).containsExactly(
                "sluice.rules.a.capacity = (missing): expected the name of a rule with key global and a rate, whose spare "
                        + "permits pay for requests over the limit (throttling=elastic needs one)");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "elastic", "sluice.rules.a.capacity", "nope"))
                .containsExactly("sluice.rules.a.capacity = \"nope\": " + CAPACITY + "; no such other rule");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.key", "global", "sluice.rules.a.throttling", "elastic",
                "sluice.rules.a.capacity", "a"))
                .containsExactly("sluice.rules.a.capacity = \"a\": " + CAPACITY + "; no such other rule");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "elastic", "sluice.rules.a.capacity", "b",
                "sluice.rules.b.rate", "100/1m"))
                .containsExactly("sluice.rules.a.capacity = \"b\": " + CAPACITY + "; rule b has key ip");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "elastic", "sluice.rules.a.capacity", "b",
                "sluice.rules.b.concurrency", "4", "sluice.rules.b.key", "global"))
                .containsExactly("sluice.rules.a.capacity = \"b\": " + CAPACITY + "; rule b has no rate");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.capacity", "b",
                "sluice.rules.b.rate", "100/1m", "sluice.rules.b.key", "global"))
                .containsExactly("sluice.rules.a.capacity = \"b\": expected capacity only with throttling=elastic");
        // A broken capacity rule reports its own problem, not a second one here.
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "elastic", "sluice.rules.a.capacity", "b",
                "sluice.rules.b.rate", "lots", "sluice.rules.b.key", "global"))
                .containsExactly("sluice.rules.b.rate = \"lots\": expected <permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms (permits from 1 to 1000000000, a period from 1ms to 366d)");
    }

    @Test
    void elasticIsRefusedForALeakyBucket() {
        assertThat(problems("sluice.rules.a.rate", "10/1s", "sluice.rules.a.algorithm", "leaky-bucket",
                "sluice.rules.a.throttling", "elastic", "sluice.rules.a.capacity", "b",
                "sluice.rules.b.rate", "100/1s", "sluice.rules.b.key", "global")).containsExactly(
                "sluice.rules.a.throttling = \"elastic\": expected hard or soft with algorithm=leaky-bucket "
                        + "(a pace has no permits to borrow and hand back)");
    }

    @Test
    void costsArePerPathFirstMatchWinsElseCost() {
        RatePolicy p = policy("a", "sluice.rules.a.rate", "100/1m", "sluice.rules.a.cost", "3",
                "sluice.rules.a.costs", "/api/export/*=10, /api/search=2,/api/*=5");
        assertThat(p.costFor("/api/export/all")).isEqualTo(10);
        assertThat(p.costFor("/api/search")).isEqualTo(2);
        assertThat(p.costFor("/api/other")).isEqualTo(5);
        assertThat(p.costFor("/elsewhere")).isEqualTo(3);
        assertThat(p.costs()).hasToString("[/api/export/*=10, /api/search=2, /api/*=5]");
    }

    @Test
    void aMalformedCostsEntryIsAnError() {
        for (String bad : List.of("/api/export/*", "/api/export/*=", "/api/x=0", "/api/x=ten", "api/x=2", "/a=2,,/b=3",
                "/a=2, /b=-1", "=4")) {
            assertThat(problems("sluice.rules.a.rate", "100/1m", "sluice.rules.a.costs", bad))
                    .as(bad).containsExactly("sluice.rules.a.costs = \"" + bad + "\": " + COSTS);
        }
        assertThat(problems("sluice.rules.a.rate", "100/1m", "sluice.rules.a.cost", "0"))
                .containsExactly("sluice.rules.a.cost = \"0\": expected a whole number of permits from 1 to 1000000000 such as 5");
    }

    @Test
    void aStaticCostAboveTheRulesCapacityIsAnError() {
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.cost", "11")).containsExactly(
                "sluice.rules.a.cost = \"11\": expected a cost of at most 10, the most the rule admits at once (its rate)");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.burst", "4", "sluice.rules.a.costs", "/x=2, /big=5")).containsExactly(
                "sluice.rules.a.costs = \"/x=2, /big=5\": expected costs of at most 4, the most the rule admits at once (burst)");
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "soft", "sluice.rules.a.overage", "50%",
                "sluice.rules.a.cost", "16")).containsExactly(
                "sluice.rules.a.cost = \"16\": expected a cost of at most 15, the most the rule admits at once (its rate with overage)");
        assertThat(policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "soft", "sluice.rules.a.overage", "50%",
                "sluice.rules.a.cost", "15").cost()).isEqualTo(15);
        // A leaky bucket's request takes at most one period of its pace (issue 21: it let any cost through).
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.cost", "50"))
                .containsExactly("sluice.rules.a.cost = \"50\": expected a cost of at most 10, the most the rule admits at once (its rate)");
    }

    @Test
    void thesePropertiesNeedARate() {
        assertThat(problems("sluice.rules.c.concurrency", "4", "sluice.rules.c.algorithm", "token-bucket",
                "sluice.rules.c.cost", "2")).containsExactly(
                "sluice.rules.c.algorithm = \"token-bucket\": expected algorithm only on a rule with rate",
                "sluice.rules.c.cost = \"2\": expected cost only on a rule with rate");
    }

    @Test
    void everyProblemOfOneRuleIsReportedTogether() {
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "fixed-window",
                "sluice.rules.a.burst", "5", "sluice.rules.a.queue", "2", "sluice.rules.a.overage", "5%")).containsExactly(
                "sluice.rules.a.burst = \"5\": expected burst only with algorithm=token-bucket",
                "sluice.rules.a.queue = \"2\": expected queue only with algorithm=leaky-bucket",
                "sluice.rules.a.overage = \"5%\": expected overage only with throttling=soft or throttling=elastic");
    }

    @Test
    void thePolicyBuildsTheBackendRequest() {
        RatePolicy p = policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.burst", "20", "sluice.rules.a.throttling", "soft", "sluice.rules.a.overage", "50%");
        RateRequest r = p.request("k", new Rate(10, Duration.ofMinutes(1)), 2);
        assertThat(r).isEqualTo(new RateRequest("k", Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1), 2, 20, 0, 15));
        assertThat(r.effectiveBurst()).isEqualTo(30);
        // The bucket's 20 or the overage's own bucket's 30 - 20: the larger.
        assertThat(Optional.of(p.capacityFor(10))).contains(20L);
    }
    @Test
    void prefetchTakesPermitsAndAHoldOfAtMostATenthOfThePeriod() {
        RatePolicy p = policy("a", "sluice.rules.a.rate", "1000/1m", "sluice.rules.a.prefetch", "50");
        assertThat(p.prefetch()).isEqualTo(PrefetchSize.of(50));
        assertThat(p.prefetchHold()).as("the default: 1 s").isEqualTo(Duration.ofSeconds(1));
        assertThat(policy("a", "sluice.rules.a.rate", "1000/5s", "sluice.rules.a.prefetch", "50").prefetchHold())
                .as("at most a tenth of the period").isEqualTo(Duration.ofMillis(500));
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1m", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.prefetch", "50", "sluice.rules.a.prefetch-hold", "250ms").prefetchHold()).isEqualTo(Duration.ofMillis(250));
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1m", "sluice.rules.a.prefetch", "off").prefetches()).isFalse();
    }

    @Test
    void aRuleWithoutPrefetchIsAutoWhereAHundredthOfItsLimitIsAPermit() {
        RatePolicy auto = policy("a", "sluice.rules.a.rate", "1000/1m");
        assertThat(auto.prefetch()).isEqualTo(PrefetchSize.AUTO);
        assertThat(auto.prefetchHold()).as("100 ms at most").isEqualTo(Duration.ofMillis(100));
        assertThat(policy("a", "sluice.rules.a.rate", "1000/500ms").prefetchHold()).as("a hundredth of the period").isEqualTo(Duration.ofMillis(5));
        assertThat(policy("a", "sluice.rules.a.rate", "1000/99ms").prefetch()).as("under a millisecond: no hold").isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1m", "sluice.rules.a.prefetch-hold", "20ms").prefetchHold())
                .isEqualTo(Duration.ofMillis(20));
        assertThat(policy("a", "sluice.rules.a.rate", "400/1h").prefetch()).as("a hundredth is the smallest stock").isEqualTo(PrefetchSize.AUTO);
        assertThat(policy("a", "sluice.rules.a.rate", "399/1h").prefetch()).as("less than that").isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "99/1h", "sluice.rules.a.plan", "header:X-Plan",
                "sluice.rules.a.plans.pro.rate", "1000/1h").prefetch())
                .as("a plan's limit is large enough").isEqualTo(PrefetchSize.AUTO);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1h", "sluice.rules.a.algorithm", "token-bucket", "sluice.rules.a.burst", "350")
                .prefetch()).as("a bucket of 350 holds less than 400").isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1h", "sluice.rules.a.algorithm", "leaky-bucket").prefetch()).isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1h", "sluice.rules.a.throttling", "soft").prefetch()).isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1h", "sluice.rules.a.block", "15m").prefetch()).isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1h", "sluice.rules.a.algorithm", "token-bucket", "sluice.rules.a.settle",
                "header:X-Tokens").prefetch()).isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/5ms").prefetch()).as("no room for a hold").isEqualTo(PrefetchSize.OFF);
        assertThat(policy("a", "sluice.rules.a.rate", "1000/1m", "sluice.rules.a.prefetch", "auto").prefetch()).isEqualTo(PrefetchSize.AUTO);
        for (String window : new String[] {"fixed-window", "sliding-window"}) {
            assertThat(policy("a", "sluice.rules.a.rate", "100/1s", "sluice.rules.a.algorithm", window, "sluice.rules.a.prefetch", "9")
                    .prefetchHold()).as(window + ": a window counter prefetches too").isEqualTo(Duration.ofMillis(100));
        }
    }

    @Test
    void badPrefetchesAreErrorsNamingWhatIsExpected() {
        assertThat(problems("sluice.rules.a.rate", "1000/1m", "sluice.rules.a.prefetch", "0"))
                .containsExactly("sluice.rules.a.prefetch = \"0\": expected auto, off, or a whole number of permits from 1 to 1000000000, fewer than the rate's, such as 100");
        assertThat(problems("sluice.rules.a.rate", "1000/1m", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.prefetch", "auto"))
                .hasSize(1).allMatch(p -> p.startsWith("sluice.rules.a.prefetch = \"auto\": expected prefetch only with algorithm=sliding-log, token-bucket"));
        assertThat(problems("sluice.rules.a.rate", "1000/1m", "sluice.rules.a.block", "1m", "sluice.rules.a.prefetch", "auto"))
                .containsExactly("sluice.rules.a.block = \"1m\": expected block without prefetch (a server's prefetched permits would admit a blocked key)");
        assertThat(problems("sluice.rules.a.rate", "100/1m", "sluice.rules.a.prefetch", "100"))
                .containsExactly("sluice.rules.a.prefetch = \"100\": expected fewer permits than the rate's 100");
        assertThat(problems("sluice.rules.a.rate", "1000/1m", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.prefetch", "10"))
                .containsExactly("sluice.rules.a.prefetch = \"10\": expected prefetch only with algorithm=sliding-log, token-bucket,"
                        + " fixed-window or sliding-window (a leaky bucket paces requests one slot at a time: a server's stock would"
                        + " admit them unpaced)");
        assertThat(problems("sluice.rules.a.rate", "1000/1m", "sluice.rules.a.throttling", "soft", "sluice.rules.a.prefetch", "10"))
                .containsExactly("sluice.rules.a.prefetch = \"10\": expected prefetch only with throttling=hard");
        assertThat(problems("sluice.rules.a.rate", "1000/1m", "sluice.rules.a.prefetch", "10", "sluice.rules.a.prefetch-hold", "7s"))
                .containsExactly("sluice.rules.a.prefetch-hold = \"7s\": expected a duration from 1ms to a tenth of the rate's period (6s) such as 500ms");
        assertThat(problems("sluice.rules.a.rate", "1000/1m", "sluice.rules.a.prefetch", "off", "sluice.rules.a.prefetch-hold", "1s"))
                .containsExactly("sluice.rules.a.prefetch-hold = \"1s\": expected prefetch-hold only with prefetch");
        assertThat(problems("sluice.rules.a.concurrency", "3", "sluice.rules.a.prefetch", "10"))
                .containsExactly("sluice.rules.a.prefetch = \"10\": expected prefetch only on a rule with rate");
    }

    /** Issue 21: every number has its range, stated in the message, at and past each bound. */
    @Test
    void aRatesPermitsAndPeriodHaveTheirRange() {
        String expected = "expected <permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms"
                + " (permits from 1 to 1000000000, a period from 1ms to 366d)";
        assertThat(policy("a", "sluice.rules.a.rate", "1000000000/1h").cost()).isEqualTo(1);
        assertThat(RuleParser.parse(props("sluice.rules.a.rate", "1/366d")).get("a").orElseThrow().rate().orElseThrow().period())
                .isEqualTo(Duration.ofDays(366));
        for (String bad : List.of("1000000001/1h", "999999999999999999/1h", "1/367d", "1/8785h")) {
            assertThat(problems("sluice.rules.a.rate", bad)).containsExactly("sluice.rules.a.rate = \"" + bad + "\": " + expected);
        }
        // Issue 21: this threw a NullPointerException (the effective limit overflowed a long).
        assertThat(problems("sluice.rules.a.rate", "999999999999999999/1h", "sluice.rules.a.throttling", "soft",
                "sluice.rules.a.overage", "1000%")).containsExactly("sluice.rules.a.rate = \"999999999999999999/1h\": " + expected);
        RatePolicy most = policy("a", "sluice.rules.a.rate", "1000000000/1h", "sluice.rules.a.throttling", "soft",
                "sluice.rules.a.overage", "1000%");
        assertThat(most.effectiveLimit(1_000_000_000)).isEqualTo(11_000_000_000L);
    }

    @Test
    void aCostHasItsRange() {
        String expected = "expected a whole number of permits from 1 to 1000000000 such as 5";
        assertThat(policy("a", "sluice.rules.a.rate", "1000000000/1h", "sluice.rules.a.cost", "1000000000").cost()).isEqualTo(1_000_000_000);
        for (String bad : List.of("1000000001", "5000000000", "0")) {
            assertThat(problems("sluice.rules.a.rate", "1000000000/1h", "sluice.rules.a.cost", bad))
                    .containsExactly("sluice.rules.a.cost = \"" + bad + "\": " + expected);
        }
        assertThat(policy("a", "sluice.rules.a.rate", "1000000000/1h", "sluice.rules.a.costs", "/x=1000000000").costs().get(0).cost())
                .isEqualTo(1_000_000_000);
        assertThat(problems("sluice.rules.a.rate", "1000000000/1h", "sluice.rules.a.costs", "/x=1000000001"))
                .containsExactly("sluice.rules.a.costs = \"/x=1000000001\": " + COSTS);
    }

    /** Issue 21: a leaky bucket's request takes at most one period of its pace; the costs entry is refused. */
    @Test
    void aLeakyBucketsCostIsAtMostItsRate() {
        assertThat(policy("a", "sluice.rules.a.rate", "10/1s", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.cost", "10")
                .cost()).isEqualTo(10);
        assertThat(problems("sluice.rules.a.rate", "10/1s", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.cost", "11"))
                .containsExactly("sluice.rules.a.cost = \"11\": expected a cost of at most 10, the most the rule admits at once (its rate)");
        assertThat(problems("sluice.rules.export.rate", "1/30d", "sluice.rules.export.algorithm", "leaky-bucket",
                "sluice.rules.export.costs", "/export/full=100000000")).containsExactly("sluice.rules.export.costs = "
                + "\"/export/full=100000000\": expected costs of at most 1, the most the rule admits at once (its rate)");
    }

    @Test
    void aBurstAndAQueueAreAtMostAHundredPeriods() {
        assertThat(policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket", "sluice.rules.a.burst", "1000")
                .burst()).isEqualTo(1000);
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket", "sluice.rules.a.burst", "1001"))
                .containsExactly("sluice.rules.a.burst = \"1001\": expected a whole number of requests from 1 to 1000 (100 times"
                        + " the rate's permits, at most 1000000000) such as 20");
        assertThat(problems("sluice.rules.a.rate", "100000000/1m", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.burst", "1000000001")).containsExactly("sluice.rules.a.burst = \"1000000001\": expected a whole"
                + " number of requests from 1 to 1000000000 (100 times the rate's permits, at most 1000000000) such as 20");
        assertThat(policy("a", "sluice.rules.a.rate", "1/1s", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.queue", "100")
                .queue()).isEqualTo(100);
        assertThat(problems("sluice.rules.a.rate", "1/1s", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.queue", "101"))
                .containsExactly("sluice.rules.a.queue = \"101\": expected a whole number of waiting requests from 0 to 100 (100"
                        + " times the rate's permits, at most 1000000000) such as 5");
    }

    @Test
    void anOverageIsAtMostAThousandPercent() {
        assertThat(policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "soft", "sluice.rules.a.overage", "1000%")
                .overagePercent()).isEqualTo(1000);
        assertThat(problems("sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "soft", "sluice.rules.a.overage", "1001%"))
                .containsExactly("sluice.rules.a.overage = \"1001%\": expected a percentage from 1% to 1000% such as 20%");
    }

    /** With an overage, a token bucket's costliest request is the larger of its burst and the overage's own bucket. */
    @Test
    void anElasticTokenBucketsCostliestRequestFitsOneOfItsTwoBuckets() {
        RatePolicy p = policy("a", "sluice.rules.a.rate", "10/1m", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.throttling", "soft", "sluice.rules.a.overage", "300%");
        assertThat(p.capacityFor(10)).as("burst 10, the overage's bucket 30").isEqualTo(30);
    }
}
