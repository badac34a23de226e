package io.sluice.rule;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code sluice.await-backend}: a duration, {@code 10s} by default (so that a normal start decides its first request in
 * Redis, see FirstRequestTest in the filter module), {@code 0s} not to wait; anything else is refused in the parser's form.
 */
class AwaitBackendSettingTest {
    @Test
    void defaultsToTenSeconds() {
        assertThat(RuleParser.parse(Map.of("sluice.rules.a.rate", "1/s")).settings().awaitBackend())
                .isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void takesEitherFormOfDuration() {
        assertThat(RuleParser.parse(Map.of("sluice.await-backend", "15s")).settings().awaitBackend())
                .isEqualTo(Duration.ofSeconds(15));
        assertThat(RuleParser.parse(Map.of("sluice.await-backend", "PT1M")).settings().awaitBackend())
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(RuleParser.parse(Map.of("sluice.await-backend", "0s")).settings().awaitBackend()).isZero();
    }

    @Test
    void aBadValueIsNamedAsWritten() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> RuleParser.parse(Map.of("sluice.await-backend", "soon", "sluice.rules.a.rate", "1/s")));
        assertThat(e.problems()).containsExactly(
                "sluice.await-backend = \"soon\": expected a duration such as 10s (0s: do not wait)");
        ConfigException negative = catchThrowableOfType(ConfigException.class,
                () -> RuleParser.parse(Map.of("sluice.await-backend", "-PT5S")));
        assertThat(negative.problems()).containsExactly(
                "sluice.await-backend = \"-PT5S\": expected a duration such as 10s (0s: do not wait)");
    }
}
