package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.key.PlanSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Issue 14's rule properties: plan, plans.&lt;plan&gt;.rate|burst|concurrency, sluice.problem-type and problem-type. */
class PlansParserTest {
    private static final String PROBLEM_TYPE =
            "expected an absolute URI such as https://example.com/problems/rate-limited, or about:blank";

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

    private static Rule rule(String name, String... kv) {
        return RuleParser.parse(props(kv)).get(name).orElseThrow();
    }

    @Test
    void plansOverrideTheRulesLimitsAndUnlimitedExempts() {
        Rule r = rule("api",
                "sluice.rules.api.rate", "3/1h", "sluice.rules.api.algorithm", "token-bucket",
                "sluice.rules.api.concurrency", "2",
                "sluice.rules.api.plan", "header:X-Plan",
                "sluice.rules.api.plans.pro.rate", "10/60m",
                "sluice.rules.api.plans.pro.burst", "20",
                "sluice.rules.api.plans.pro.concurrency", "5",
                "sluice.rules.api.plans.vip.rate", "unlimited",
                "sluice.rules.api.plans.vip.concurrency", "Unlimited");
        assertThat(r.plans().source()).contains(new PlanSource(PlanSource.Kind.HEADER, "X-Plan"));
        assertThat(r.plans().byName()).containsOnlyKeys("pro", "vip");
        PlanLimits pro = r.plans().lookup("pro");
        Rule underPro = pro.applyTo(r);
        assertThat(underPro.rate().orElseThrow().permits()).isEqualTo(10);
        assertThat(underPro.rate().get().period()).isEqualTo(Duration.ofHours(1));
        assertThat(underPro.ratePolicy().burstFor(10)).isEqualTo(20);
        assertThat(underPro.concurrency()).isEqualTo(5);
        assertThat(underPro.name()).isEqualTo("api");
        assertThat(underPro.key()).isEqualTo(r.key());
        PlanLimits vip = r.plans().lookup("vip");
        assertThat(vip.rateUnlimited()).isTrue();
        assertThat(vip.concurrencyUnlimited()).isTrue();
        // Anything else, exactly compared, is the rule's own limits.
        for (String other : new String[]{null, "", "Pro", "pro ", "free", "x".repeat(10_000), "pro\r\nX: y", "日本"}) {
            assertThat(r.plans().lookup(other)).as(String.valueOf(other)).isNull();
        }
    }

    @Test
    void aPlansRateBringsItsOwnDefaultBurstAndAPlanWithoutOneKeepsTheRules() {
        Rule r = rule("api",
                "sluice.rules.api.rate", "3/1h", "sluice.rules.api.algorithm", "token-bucket", "sluice.rules.api.burst", "6",
                "sluice.rules.api.plan", "param:plan",
                "sluice.rules.api.plans.pro.rate", "10/1h",
                "sluice.rules.api.plans.big.burst", "9");
        assertThat(r.plans().lookup("pro").applyTo(r).ratePolicy().burstFor(10)).isEqualTo(10);
        Rule big = r.plans().lookup("big").applyTo(r);
        assertThat(big.rate()).isEqualTo(r.rate());
        assertThat(big.ratePolicy().burstFor(3)).isEqualTo(9);
    }

    @Test
    void everyPlanSourceKindParses() {
        assertThat(PlanSource.parse("header:X-Plan")).contains(new PlanSource(PlanSource.Kind.HEADER, "X-Plan"));
        assertThat(PlanSource.parse("attribute:com.acme.plan")).contains(new PlanSource(PlanSource.Kind.ATTRIBUTE, "com.acme.plan"));
        assertThat(PlanSource.parse("param:plan")).contains(new PlanSource(PlanSource.Kind.PARAM, "plan"));
        assertThat(PlanSource.parse(" Cookie: plan ")).contains(new PlanSource(PlanSource.Kind.COOKIE, "plan"));
        for (String bad : new String[]{"user", "ip", "global", "header:", "header:X Plan", "param:a=b", "attribute:",
                "session:x", "X-Plan"}) {
            assertThat(PlanSource.parse(bad)).as(bad).isEmpty();
        }
    }

    @Test
    void aRuleWithoutPlansHasNoneAndTheDefaultProblemType() {
        Rule r = rule("a", "sluice.rules.a.rate", "3/1h");
        assertThat(r.plans()).isEqualTo(Plans.NONE);
        assertThat(r.problemType()).isEqualTo("about:blank");
    }

    @Test
    void badPlanConfigurationNamesPropertyValueAndExpectedForm() {
        assertThat(problems(
                "sluice.rules.a.rate", "3/1h",
                "sluice.rules.a.plan", "user",
                "sluice.rules.a.plans.pro.rate", "10/1m",
                "sluice.rules.a.plans.pro.burst", "20",
                "sluice.rules.a.plans.pro.concurrency", "4",
                "sluice.rules.a.plans.p!.rate", "10/1h",
                "sluice.rules.a.plans.gold.speed", "fast",
                "sluice.rules.a.plans.gold", "x",
                "sluice.rules.a.plans.silver.rate", "lots")).containsExactly(
                "sluice.rules.a.plans.gold = \"x\": expected plans.<plan>.rate, plans.<plan>.burst or plans.<plan>.concurrency",
                "sluice.rules.a.plans.gold.speed = \"fast\": expected plans.<plan>.rate, plans.<plan>.burst or plans.<plan>.concurrency",
                "sluice.rules.a.plans.p!.rate = \"10/1h\": expected a plan name of letters, digits, '_' and '-' such as "
                        + "sluice.rules.a.plans.pro.rate",
                "sluice.rules.a.plan = \"user\": expected header:<Name>, attribute:<name>, param:<name> or cookie:<name>, "
                        + "such as header:X-Plan",
                "sluice.rules.a.plans.pro.rate = \"10/1m\": expected unlimited or a rate over the rule's period 1h such as "
                        + "100/1h (a plan changes how many, not the window, so a key keeps its usage when its plan changes; "
                        + "permits from 1 to 1000000000, a period from 1ms to 366d)",
                "sluice.rules.a.plans.pro.burst = \"20\": expected burst only with algorithm=token-bucket",
                "sluice.rules.a.plans.pro.concurrency = \"4\": expected a plan concurrency only on a rule with concurrency",
                "sluice.rules.a.plans.silver.rate = \"lots\": expected unlimited or a rate over the rule's period 1h such as "
                        + "100/1h (a plan changes how many, not the window, so a key keeps its usage when its plan changes; "
                        + "permits from 1 to 1000000000, a period from 1ms to 366d)");
    }

    @Test
    void aRateOnAConcurrencyOnlyRuleAndABadConcurrencyAreErrors() {
        assertThat(problems(
                "sluice.rules.c.concurrency", "2",
                "sluice.rules.c.plan", "cookie:plan",
                "sluice.rules.c.plans.pro.rate", "10/1h",
                "sluice.rules.c.plans.gold.concurrency", "0")).containsExactly(
                "sluice.rules.c.plans.gold.concurrency = \"0\": expected unlimited or a whole number of requests in flight, "
                        + "at least 1, such as 8",
                "sluice.rules.c.plans.pro.rate = \"10/1h\": expected a plan rate only on a rule with rate");
    }

    @Test
    void aRuleWhoseOwnRateIsBadGetsThatProblemOnly() {
        assertThat(problems("sluice.rules.a.rate", "ten/h", "sluice.rules.a.plan", "header:X-Plan",
                "sluice.rules.a.plans.pro.rate", "10/1h")).containsExactly(
                "sluice.rules.a.rate = \"ten/h\": expected <permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms (permits from 1 to 1000000000, a period from 1ms to 366d)");
    }

    @Test
    void plansNeedAPlanSourceAndAPlanSourceNeedsPlans() {
        assertThat(problems("sluice.rules.a.rate", "3/1h", "sluice.rules.a.plans.pro.rate", "10/1h")).containsExactly(
                "sluice.rules.a.plan = (missing): expected where a request's plan comes from, header:<Name>, "
                        + "attribute:<name>, param:<name> or cookie:<name>, such as header:X-Plan (plans need it)");
        assertThat(problems("sluice.rules.a.rate", "3/1h", "sluice.rules.a.plan", "header:X-Plan")).containsExactly(
                "sluice.rules.a.plan = \"header:X-Plan\": expected plans to choose from, such as "
                        + "sluice.rules.a.plans.pro.rate=100/1h");
    }

    @Test
    void aPlanMustFitTheRulesCostliestRequestAndAnUnlimitedRateHasNoBurst() {
        assertThat(problems(
                "sluice.rules.a.rate", "20/1h", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.costs", "/export=10",
                "sluice.rules.a.plan", "header:X-Plan",
                "sluice.rules.a.plans.tiny.rate", "5/1h",
                "sluice.rules.a.plans.vip.rate", "unlimited",
                "sluice.rules.a.plans.vip.burst", "50")).containsExactly(
                "sluice.rules.a.plans.tiny.rate = \"5/1h\": expected a limit that admits the rule's costliest request "
                        + "(10 permits); this plan admits at most 5 at once",
                "sluice.rules.a.plans.vip.burst = \"50\": expected no burst on a plan whose rate is unlimited");
    }

    @Test
    void problemTypeIsGlobalWithAPerRuleOverride() {
        Map<String, String> p = props(
                "sluice.problem-type", "https://example.com/problems/rate-limited",
                "sluice.rules.a.rate", "3/1h",
                "sluice.rules.b.rate", "3/1h",
                "sluice.rules.b.problem-type", "urn:acme:quota",
                "sluice.rules.c.rate", "3/1h",
                "sluice.rules.c.problem-type", "about:blank");
        RuleSet rules = RuleParser.parse(p);
        assertThat(rules.get("a").orElseThrow().problemType()).isEqualTo("https://example.com/problems/rate-limited");
        assertThat(rules.get("b").orElseThrow().problemType()).isEqualTo("urn:acme:quota");
        assertThat(rules.get("c").orElseThrow().problemType()).isEqualTo("about:blank");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/problems/limit", "rate-limited", "https://example.com/a b", "https://example.com/\"x\"",
            "https://example.com/\\x", "https://example.com/é", "http://[bad"})
    void aProblemTypeMustBeAnAbsoluteUriOfPrintableAscii(String bad) {
        assertThat(problems("sluice.problem-type", bad, "sluice.rules.a.rate", "3/1h", "sluice.rules.a.problem-type", bad))
                .containsExactly("sluice.problem-type = \"" + bad + "\": " + PROBLEM_TYPE,
                        "sluice.rules.a.problem-type = \"" + bad + "\": " + PROBLEM_TYPE);
    }

    /** Issue 21: a plan's burst has the rule's range: at most 100 times the plan rate's permits. */
    @Test
    void aPlansBurstIsAtMostAHundredTimesItsRate() {
        Map<String, String> base = new LinkedHashMap<>();
        base.put("sluice.rules.api.rate", "3/1h");
        base.put("sluice.rules.api.algorithm", "token-bucket");
        base.put("sluice.rules.api.plan", "header:X-Plan");
        base.put("sluice.rules.api.plans.pro.rate", "10/1h");
        base.put("sluice.rules.api.plans.pro.burst", "1000");
        assertThat(RuleParser.parse(base).get("api").orElseThrow().plans().lookup("pro").burst()).isEqualTo(1000);
        base.put("sluice.rules.api.plans.pro.burst", "1001");
        ConfigException e = catchThrowableOfType(() -> RuleParser.parse(base), ConfigException.class);
        assertThat(e.problems()).containsExactly("sluice.rules.api.plans.pro.burst = \"1001\": expected a whole number of"
                + " requests from 1 to 1000 (100 times the rate's permits, at most 1000000000) such as 20");
    }
}
