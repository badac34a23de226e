package io.sluice.rule;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlaceholdersTest {
    private static final UnaryOperator<String> NONE = name -> null;

    private static UnaryOperator<String> only(String name, String value) {
        return n -> n.equals(name) ? value : null;
    }

    private static String resolve(Placeholders p, String value) {
        List<String> problems = new ArrayList<>();
        String out = p.resolve("sluice.key-prefix", value, problems);
        assertThat(problems).isEmpty();
        return out;
    }

    @Test
    void theSystemPropertyWinsThenTheEnvironmentVariableThenTheDefault() {
        UnaryOperator<String> sys = n -> Map.of("REDIS_HOST", "sys-host", "app.env", "prod").get(n);
        UnaryOperator<String> env = n -> Map.of("REDIS_HOST", "env-host", "TENANT", "acme").get(n);
        Placeholders both = new Placeholders(sys, env);
        assertThat(resolve(both, "redis://${REDIS_HOST:localhost}:${REDIS_PORT:6379}")).isEqualTo("redis://sys-host:6379");
        assertThat(resolve(both, "${app.env}-${TENANT}")).isEqualTo("prod-acme");
        assertThat(resolve(new Placeholders(only("app.env", "dev"), env), "redis://${REDIS_HOST}")).isEqualTo("redis://env-host");
    }

    @Test
    void otherDollarsStayAndReplacementsAreTakenLiterally() {
        Placeholders none = new Placeholders(NONE, NONE);
        assertThat(resolve(none, "/price/$5, /x/${}")).isEqualTo("/price/$5, /x/${}");
        // An empty default is a value; a replacement is never read as a further placeholder.
        assertThat(resolve(none, "a${P:}b")).isEqualTo("ab");
        assertThat(resolve(new Placeholders(NONE, only("P", "$1\\${Q}")), "${P}")).isEqualTo("$1\\${Q}");
    }

    @Test
    void unresolvedPlaceholdersAreAllReportedOnceWithoutTheRestOfTheValue() {
        Map<String, String> file = Map.of("sluice.redis.address", "redis://user:s3cret@${REDIS_HOST}:6379",
                "sluice.key-prefix", "${PREFIX}");
        assertThatThrownBy(() -> RuleParser.parse(file, new Placeholders(NONE, NONE)))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "sluice.redis.address = \"${REDIS_HOST}\": expected a system property or environment variable "
                                + "REDIS_HOST, or a default as in ${REDIS_HOST:value}",
                        "sluice.key-prefix = \"${PREFIX}\": expected a system property or environment variable PREFIX, "
                                + "or a default as in ${PREFIX:value}"))
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void aBadValueFromAPlaceholderIsShownAsWrittenNeverResolved() {
        Placeholders secret = new Placeholders(NONE, only("SECRET", "hunter2-the-secret"));
        Map<String, String> file = Map.of("sluice.rules.x.rate", "${SECRET}", "sluice.rules.x.paths", "/x",
                "sluice.headers", "pre-${SECRET}", "sluice.rules.x.colour", "${SECRET}");
        assertThatThrownBy(() -> RuleParser.parse(file, secret))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "sluice.rules.x.rate = \"${SECRET}\": expected " + Rate.EXPECTED,
                        "sluice.headers = \"pre-${SECRET}\": expected all, ietf, legacy or none",
                        "sluice.rules.x.colour = \"${SECRET}\": expected one of the rule properties " + ruleProperties()))
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void credentialsAreMaskedInEveryMessage() {
        Map<String, String> file = Map.of("sluice.redis.adress", "redis://admin:pa55word@redis.internal:6379",
                "sluice.rules.x.rate", "redis://u:pa55word@h", "sluice.rules.x.paths", "/x");
        assertThatThrownBy(() -> RuleParser.parse(file, new Placeholders(NONE, NONE)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.redis.adress = \"redis://***@redis.internal:6379\"")
                .hasMessageContaining("sluice.rules.x.rate = \"redis://***@h\"")
                .hasMessageNotContaining("pa55word");
    }

    private static String ruleProperties() {
        try {
            RuleParser.parse(Map.of("sluice.rules.x.zzz", "1"));
        } catch (ConfigException e) {
            String m = e.problems().get(0);
            return m.substring(m.indexOf("properties ") + "properties ".length());
        }
        throw new AssertionError("an unknown rule property must be an error");
    }
}
