package io.sluice.spring;

import io.sluice.Sluice;
import io.sluice.testing.RepositoryFiles;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class EnvironmentRulesTest {
    /** A property name with a dash in the first column of docs/rules.md's table. */
    private static final Pattern DASHED_ROW = Pattern.compile("^\\| `(?:sluice\\.)?(?:plans\\.<plan>\\.)?([a-z.]*-[a-z-]*)` \\|",
            Pattern.MULTILINE);

    @Test
    void readsSluicePropertiesAsWrittenWithSpringPrecedenceAndPlaceholders() {
        StandardEnvironment environment = environment(
                Map.of("sluice.rules.posts.rate", "${app.posts:5}/1m", "sluice.rules.posts.paths", "/api/posts",
                        "sluice.key-prefix", "file", "app.posts", "7", "other.property", "x"),
                Map.of("SLUICE_KEYPREFIX", "from-env", "SLUICE_RULES_POSTS_ONMISSINGKEY", "deny", "PATH", "/usr/bin"));

        assertThat(EnvironmentRules.properties(environment)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "sluice.rules.posts.rate", "7/1m",
                "sluice.rules.posts.paths", "/api/posts",
                "sluice.key-prefix", "from-env",
                "sluice.rules.posts.on-missing-key", "deny"));
    }

    @Test
    void aYamlListIsTheCommaSeparatedValueOfTheFirstSourceThatHasIt() {
        StandardEnvironment environment = environment(Map.of(
                "sluice.rules.posts.methods[0]", "POST", "sluice.rules.posts.methods[1]", "${app.method:PUT}",
                "sluice.rules.posts.paths[0]", "/b", "sluice.rules.posts.paths[1]", "/c"), Map.of());
        environment.getPropertySources().addFirst(new MapPropertySource("application-strict.yaml",
                Map.of("sluice.rules.posts.paths[0]", "/a")));

        assertThat(EnvironmentRules.properties(environment)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "sluice.rules.posts.methods", "POST,PUT",
                "sluice.rules.posts.paths", "/a"));
    }

    @Test
    void aReloadReadsTheEnvironmentAgain() {
        Map<String, Object> file = new HashMap<>(Map.of("sluice.rules.posts.rate", "5/1m", "sluice.rules.posts.paths", "/api/posts"));
        StandardEnvironment environment = environment(file, Map.of());
        try (Sluice sluice = Sluice.builder().source(EnvironmentRules.source(environment)).inMemory().build()) {
            assertThat(sluice.rules().get("posts").orElseThrow().rate().orElseThrow()).hasToString("5/1m");

            file.put("sluice.rules.posts.rate", "7/1m");

            assertThat(sluice.reload()).isTrue();
            assertThat(sluice.rules().get("posts").orElseThrow().rate().orElseThrow()).hasToString("7/1m");
        }
    }

    @Test
    void anEnvironmentVariableGetsItsDashesBackFromTheKnownNames() {
        assertThat(EnvironmentRules.fromVariable("SLUICE_REDIS_ADDRESS")).isEqualTo("sluice.redis.address");
        assertThat(EnvironmentRules.fromVariable("SLUICE_MAXCLOCKSKEW")).isEqualTo("sluice.max-clock-skew");
        assertThat(EnvironmentRules.fromVariable("SLUICE_RULES_UPLOADS_PREFETCHHOLD"))
                .isEqualTo("sluice.rules.uploads.prefetch-hold");
        assertThat(EnvironmentRules.fromVariable("JAVA_HOME")).isNull();
    }

    @Test
    void theDashedNamesAreThoseOfTheRulesReference() {
        String page = RepositoryFiles.read(Path.of("docs", "rules.md"));
        Set<String> dashed = new TreeSet<>();
        Matcher m = DASHED_ROW.matcher(page);
        while (m.find()) dashed.add(m.group(1).substring(m.group(1).lastIndexOf('.') + 1));
        assertThat(dashed).isEqualTo(new TreeSet<>(EnvironmentRules.DASHED));
    }

    private static StandardEnvironment environment(Map<String, Object> file, Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
        environment.getPropertySources().addLast(new MapPropertySource("application.properties", file));
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        // As Spring Boot does: relaxed names across every source.
        ConfigurationPropertySources.attach(environment);
        return environment;
    }
}
