package io.sluice.rule;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code sluice.reload}: how often a {@code file:} rules file is polled; {@code 0s} (the default) never. */
class ReloadSettingTest {
    private static Duration reload(String value) {
        return RuleParser.parse(Map.of("sluice.reload", value, "sluice.rules.r.rate", "1/s")).settings().reload();
    }

    @Test
    void theDefaultIsNeverAndADurationIsAnInterval() {
        assertThat(RuleParser.parse(Map.of("sluice.rules.r.rate", "1/s")).settings().reload()).isZero();
        assertThat(reload("0s")).isZero();
        assertThat(reload("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(reload("PT1M")).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void aBadOrTooShortIntervalNamesPropertyValueAndExpectedForm() {
        for (String bad : new String[] {"50ms", "often", "-1s"}) {
            assertThatThrownBy(() -> reload(bad)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("sluice.reload = \"" + bad + "\": expected a duration of at least 100ms such as 10s (0s: never)");
        }
    }

    @Test
    void allowNoRulesIsFalseByDefaultAndTrueOrFalseOnly() {
        assertThat(RuleParser.parse(Map.of("sluice.rules.r.rate", "1/s")).settings().allowNoRules()).isFalse();
        assertThat(RuleParser.parse(Map.of("sluice.allow-no-rules", "true")).settings().allowNoRules()).isTrue();
        assertThat(RuleParser.parse(Map.of("sluice.allow-no-rules", "FALSE")).settings().allowNoRules()).isFalse();
        assertThatThrownBy(() -> RuleParser.parse(Map.of("sluice.allow-no-rules", "yes"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.allow-no-rules = \"yes\": expected true or false");
    }
}
