package io.sluice.servlet;

import io.sluice.ConfigException;
import io.sluice.testing.RepositoryFiles;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link MicroProfileRules} on SmallRye Config, the implementation of Quarkus and WildFly, with sources of the test's own. */
class MicroProfileRulesTest {
    /** MicroProfile Config's default ordinals: system properties, environment variables, the properties file. */
    static final int SYSTEM_PROPERTIES = 400;
    static final int ENVIRONMENT = 300;
    static final int PROPERTIES_FILE = 100;
    /** A property name with a dash in the first column of docs/rules.md's table. */
    private static final Pattern DASHED_ROW = Pattern.compile("^\\| `(?:sluice\\.)?(?:plans\\.<plan>\\.)?([a-z.]*-[a-z-]*)` \\|",
            Pattern.MULTILINE);

    @Test
    void readsSluicePropertiesInTheRuntimesPrecedenceWithEnvironmentVariablesAndExpressions() {
        SmallRyeConfig config = config(
                Map.of("sluice.rules.posts.rate", "${app.posts:5}/1m", "sluice.rules.posts.paths", "/api/posts",
                        "sluice.rules.posts.key", "user", "sluice.key-prefix", "file", "app.posts", "7",
                        "other.property", "x"),
                Map.of("SLUICE_KEY_PREFIX", "from-env", "SLUICE_RULES_POSTS_ON_MISSING_KEY", "deny",
                        "SLUICE_RULES_POSTS_KEY", "ip", "PATH", "/usr/bin"),
                Map.of("sluice.rules.posts.key", "header:X-User"));

        assertThat(MicroProfileRules.properties(config)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "sluice.rules.posts.rate", "7/1m",
                "sluice.rules.posts.paths", "/api/posts",
                // The environment variable over the file, the system property over both.
                "sluice.key-prefix", "from-env",
                "sluice.rules.posts.key", "header:X-User",
                // Set only as an environment variable: its dashes given back.
                "sluice.rules.posts.on-missing-key", "deny"));
    }

    @Test
    void aVariableOverridesARuleNameWithADashOrAnUnderscoreWrittenInAFile() {
        SmallRyeConfig config = config(Map.of("sluice.rules.my-rule.rate", "1/1s", "sluice.rules.my_other.rate", "1/1s"),
                Map.of("SLUICE_RULES_MY_RULE_RATE", "2/1s", "SLUICE_RULES_MY_OTHER_RATE", "3/1s"), Map.of());

        assertThat(MicroProfileRules.properties(config)).isEqualTo(Map.of(
                "sluice.rules.my-rule.rate", "2/1s", "sluice.rules.my_other.rate", "3/1s"));
    }

    @Test
    void theRulesFilesLocationIsNotARule() {
        SmallRyeConfig config = config(Map.of("sluice.rules.a.rate", "1/1s"), Map.of("SLUICE_CONFIG", "/etc/rules"),
                Map.of("sluice.config", "/etc/other"));

        assertThat(MicroProfileRules.properties(config)).isEqualTo(Map.of("sluice.rules.a.rate", "1/1s"));
    }

    @Test
    void anExpressionTheRuntimeCannotExpandNamesTheProperty() {
        SmallRyeConfig config = config(Map.of("sluice.redis.address", "${NO_SUCH_VARIABLE}"), Map.of(), Map.of());

        assertThatThrownBy(() -> MicroProfileRules.properties(config)).isInstanceOf(ConfigException.class)
                .hasMessageEndingWith("sluice.redis.address = \"${NO_SUCH_VARIABLE}\": expected a value MicroProfile Config"
                        + " can resolve (an expression ${NAME} needs NAME set or a default, ${NAME:default})");
    }

    @Test
    void anEnvironmentVariableNamesThePropertyMicroProfileConfigMapsToIt() {
        assertThat(MicroProfileRules.fromVariable("SLUICE_RULES_POSTS_RATE")).isEqualTo("sluice.rules.posts.rate");
        assertThat(MicroProfileRules.fromVariable("SLUICE_KEY_PREFIX")).isEqualTo("sluice.key-prefix");
        assertThat(MicroProfileRules.fromVariable("SLUICE_ON_BACKEND_FAILURE")).isEqualTo("sluice.on-backend-failure");
        assertThat(MicroProfileRules.fromVariable("SLUICE_RULES_POSTS_ON_BACKEND_FAILURE"))
                .isEqualTo("sluice.rules.posts.on-backend-failure");
        assertThat(MicroProfileRules.fromVariable("SLUICE_RULES_POSTS_PREFETCH_HOLD"))
                .isEqualTo("sluice.rules.posts.prefetch-hold");
        assertThat(MicroProfileRules.fromVariable("SLUICE_REDIS_ADDRESS")).isEqualTo("sluice.redis.address");
    }

    @Test
    void theDashedNamesAreThoseOfTheRulesReference() {
        String page = RepositoryFiles.read(Path.of("docs", "rules.md"));
        Set<String> dashed = new TreeSet<>();
        Matcher m = DASHED_ROW.matcher(page);
        while (m.find()) dashed.add(m.group(1).substring(m.group(1).lastIndexOf('.') + 1));
        assertThat(dashed).isEqualTo(new TreeSet<>(MicroProfileRules.DASHED));
    }

    /** A configuration of a properties file, environment variables and system properties, at MicroProfile Config's ordinals. */
    static SmallRyeConfig config(Map<String, String> file, Map<String, String> environment,
                                 Map<String, String> systemProperties) {
        return new SmallRyeConfigBuilder().addDefaultInterceptors().withSources(
                new PropertiesConfigSource(new LinkedHashMap<>(file), "microprofile-config.properties", PROPERTIES_FILE),
                new EnvConfigSource(environment, ENVIRONMENT),
                new PropertiesConfigSource(systemProperties, "system properties", SYSTEM_PROPERTIES)).build();
    }
}
