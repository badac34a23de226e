package io.sluice.rule;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code on-backend-failure=local}, globally and per rule, and {@code sluice.local-share} with its range. */
class LocalSharePolicyParserTest {
    @Test
    void localIsAcceptedWhereAllowAndDenyAre() {
        RuleSet rules = RuleParser.parse(Map.of("sluice.on-backend-failure", "local",
                "sluice.rules.a.rate", "5/1m",
                "sluice.rules.b.rate", "5/1m", "sluice.rules.b.on-backend-failure", "deny",
                "sluice.rules.c.concurrency", "3", "sluice.rules.c.on-backend-failure", "LOCAL"));
        assertThat(rules.settings().onBackendFailure()).isEqualTo(FailurePolicy.LOCAL);
        assertThat(rules.get("a").orElseThrow().onBackendFailure()).isEqualTo(FailurePolicy.LOCAL);
        assertThat(rules.get("b").orElseThrow().onBackendFailure()).isEqualTo(FailurePolicy.DENY);
        assertThat(rules.get("c").orElseThrow().onBackendFailure()).isEqualTo(FailurePolicy.LOCAL);
        assertThat(rules.settings().localShare()).as("counted from the servers by default").isEqualTo(Settings.LOCAL_SHARE_FROM_BACKEND);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 10_000})
    void aLocalShareInRangeFixesTheDivisor(int n) {
        RuleSet rules = RuleParser.parse(Map.of("sluice.local-share", Integer.toString(n), "sluice.rules.a.rate", "5/1m"));
        assertThat(rules.settings().localShare()).isEqualTo(n);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "10001", "-1", "three", "2.5", "", "99999999999"})
    void aLocalShareOutOfRangeFailsNamingPropertyValueAndForm(String bad) {
        assertThatThrownBy(() -> RuleParser.parse(Map.of("sluice.local-share", bad, "sluice.rules.a.rate", "5/1m")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.local-share = \"" + bad + "\": expected a whole number of servers from 1 to 10000 such as 3");
    }
}
