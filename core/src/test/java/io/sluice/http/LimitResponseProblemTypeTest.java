package io.sluice.http;

import io.sluice.Decision;
import io.sluice.LimitExceededException;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The problem body's {@code type} as the filter and the Jakarta REST mapper both write it (they share
 * {@link LimitResponse}): the rule's {@code problem-type}, else {@code sluice.problem-type}, else about:blank.
 */
class LimitResponseProblemTypeTest {
    private final RuleSet rules = RuleParser.parse(Map.of(
            "sluice.problem-type", "https://example.com/problems/rate-limited",
            "sluice.rules.a.rate", "3/1h",
            "sluice.rules.b.rate", "3/1h",
            "sluice.rules.b.status", "503",
            "sluice.rules.b.problem-type", "urn:example:quota"));

    private Decision rejection(String rule) {
        return Decision.rejected(rules.get(rule).orElseThrow(), Decision.Kind.RATE, 3, 0, Duration.ofSeconds(1200),
                Duration.ofSeconds(1200));
    }

    @Test
    void theBodyCarriesTheRulesProblemType() {
        assertThat(LimitResponse.problem(rejection("a"))).isEqualTo("{\"type\":\"https://example.com/problems/rate-limited\","
                + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Request limit reached. Retry after 1200 seconds.\","
                + "\"violated-policies\":[\"a\"]}");
        assertThat(LimitResponse.problem(rejection("b"))).isEqualTo("{\"type\":\"urn:example:quota\","
                + "\"title\":\"Service Unavailable\",\"status\":503,\"detail\":\"Request limit reached. Retry after 1200 seconds.\","
                + "\"violated-policies\":[\"b\"]}");
    }

    @Test
    void anExceptionCarriesItsDecisionsProblemTypeToTheMapperAndOneBuiltByHandHasAboutBlank() {
        LimitExceededException thrown = LimitExceededException.of(rejection("b"));
        assertThat(LimitResponse.problem(thrown.decision().orElseThrow())).startsWith("{\"type\":\"urn:example:quota\"");
        assertThat(LimitResponse.problem(429, "a", 5)).startsWith("{\"type\":\"about:blank\"");
    }
}
