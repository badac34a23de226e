package io.sluice.rule;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An override's limit is read by the plans' code: the same forms, ranges and messages, named as an override. */
class OverrideParserTest {
    private static final RuleSet RULES = RuleParser.parse(Map.of(
            "sluice.rules.api.rate", "10/1h",
            "sluice.rules.api.key", "user",
            "sluice.rules.jobs.concurrency", "2",
            "sluice.rules.both.rate", "10/1m",
            "sluice.rules.both.concurrency", "4",
            "sluice.rules.bucket.rate", "10/1h",
            "sluice.rules.bucket.algorithm", "token-bucket",
            "sluice.rules.bucket.burst", "30",
            "sluice.rules.costly.rate", "10/1h",
            "sluice.rules.costly.cost", "5"));

    private static Rule rule(String name) {
        return RULES.get(name).orElseThrow();
    }

    @Test
    void aRateOverTheRulesPeriodReplacesTheRateOnly() {
        PlanLimits o = OverrideParser.parse(rule("both"), "7500/1m");
        Rule applied = o.applyTo(rule("both"));
        assertThat(applied.rate().orElseThrow().permits()).isEqualTo(7500);
        assertThat(applied.concurrency()).isEqualTo(4);
        assertThat(OverrideParser.canonical(o)).isEqualTo("7500/1m");
        // Written another way, stored the one way.
        assertThat(OverrideParser.canonical(OverrideParser.parse(rule("api"), " 7500/PT1H "))).isEqualTo("7500/1h");
    }

    @Test
    void aConcurrencyNumberReplacesTheConcurrencyOnly() {
        PlanLimits o = OverrideParser.parse(rule("both"), "8");
        Rule applied = o.applyTo(rule("both"));
        assertThat(applied.concurrency()).isEqualTo(8);
        assertThat(applied.rate().orElseThrow().permits()).isEqualTo(10);
        assertThat(OverrideParser.canonical(o)).isEqualTo("8");
    }

    @Test
    void unlimitedExemptsEveryLimitTheRuleHas() {
        PlanLimits both = OverrideParser.parse(rule("both"), "UNLIMITED");
        assertThat(both.rateUnlimited()).isTrue();
        assertThat(both.concurrencyUnlimited()).isTrue();
        PlanLimits rate = OverrideParser.parse(rule("api"), "unlimited");
        assertThat(rate.rateUnlimited()).isTrue();
        assertThat(rate.concurrencyUnlimited()).isFalse();
        assertThat(OverrideParser.canonical(rate)).isEqualTo("unlimited");
    }

    @Test
    void aTokenBucketsBurstBecomesTheOverridesPermits() {
        Rule applied = OverrideParser.parse(rule("bucket"), "100/1h").applyTo(rule("bucket"));
        assertThat(applied.ratePolicy().burst()).isZero(); // zero: the permits of the rate
        assertThat(applied.rate().orElseThrow().permits()).isEqualTo(100);
    }

    @Test
    void badValuesGetThePlansMessagesNamedAsAnOverride() {
        assertThatThrownBy(() -> OverrideParser.parse(rule("api"), "7500/1m"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("override of sluice.rules.api.rate = \"7500/1m\": expected unlimited or a rate over the rule's "
                        + "period 1h such as 100/1h (a plan changes how many, not the window, so a key keeps its usage when "
                        + "its plan changes; permits from 1 to 1000000000, a period from 1ms to 366d)");
        assertThatThrownBy(() -> OverrideParser.parse(rule("api"), "ten/h"))
                .hasMessageStartingWith("override of sluice.rules.api.rate = \"ten/h\": expected unlimited or a rate over");
        assertThatThrownBy(() -> OverrideParser.parse(rule("jobs"), "0"))
                .hasMessage("override of sluice.rules.jobs.concurrency = \"0\": expected unlimited or a whole number of "
                        + "requests in flight, at least 1, such as 8");
        assertThatThrownBy(() -> OverrideParser.parse(rule("costly"), "4/1h"))
                .hasMessageContaining("a limit that admits the rule's costliest request (5 permits)");
        assertThatThrownBy(() -> OverrideParser.parse(rule("api"), ""))
                .hasMessageStartingWith("override of sluice.rules.api.concurrency = \"\": expected a rate over the rule's period such as 7500/1h");
        assertThatThrownBy(() -> OverrideParser.parse(rule("api"), null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRateOnAConcurrencyRuleOrANumberOnARateRuleIsAClearError() {
        assertThatThrownBy(() -> OverrideParser.parse(rule("jobs"), "100/1h"))
                .hasMessage("override of sluice.rules.jobs.rate = \"100/1h\": expected a concurrency number such as 8, or "
                        + "unlimited: rule jobs limits concurrency only");
        assertThatThrownBy(() -> OverrideParser.parse(rule("api"), "8"))
                .hasMessage("override of sluice.rules.api.concurrency = \"8\": expected a rate over the rule's period such "
                        + "as 7500/1h, or unlimited: rule api limits a rate only");
    }

    @Test
    void aHostileValueIsEchoedShortAndOnOneLine() {
        String hostile = "1/1h\r\nX-Injected: yes" + "9".repeat(10_000);
        assertThatThrownBy(() -> OverrideParser.parse(rule("api"), hostile))
                .satisfies(e -> {
                    assertThat(e.getMessage()).doesNotContain("\r").doesNotContain("\n");
                    assertThat(e.getMessage().length()).isLessThan(600);
                });
    }
}
