package io.sluice.servlet;

import io.sluice.ConfigException;
import io.sluice.rule.RulesSource;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The precedence between a rules file and MicroProfile Config, on SmallRye Config registered for a class loader of
 * the test's own (so that neither this JVM's system properties nor its environment take part).
 */
class ApplicationRulesTest {
    @TempDir
    Path dir;
    private final List<ClassLoader> registered = new ArrayList<>();

    @AfterEach
    void release() {
        registered.forEach(l -> ConfigProviderResolver.instance()
                .releaseConfig(ConfigProviderResolver.instance().getConfig(l)));
    }

    @Test
    void microProfileConfigOverTheDefaultFilePropertyByPropertyAndTheOverridesOverBoth() throws IOException {
        ClassLoader loader = application("sluice.rules.posts.rate=5/1h\nsluice.rules.posts.key=user\n"
                        + "sluice.key-prefix=file\n",
                Map.of("sluice.rules.posts.rate", "10/1h", "sluice.rules.images.concurrency", "2",
                        "sluice.rules.images.key", "global", "sluice.key-prefix", "config"),
                Map.of("SLUICE_RULES_IMAGES_LEASE", "30s"));

        RulesSource source = ApplicationRules.source(null, Map.of("sluice.key-prefix", "init-param"), loader);

        assertThat(source.load()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "sluice.rules.posts.rate", "10/1h",
                "sluice.rules.posts.key", "user",
                "sluice.rules.images.concurrency", "2",
                "sluice.rules.images.key", "global",
                "sluice.rules.images.lease", "30s",
                "sluice.key-prefix", "init-param"));
    }

    @Test
    void microProfileConfigAloneIsEnough() throws IOException {
        ClassLoader loader = application(null, Map.of("sluice.rules.posts.rate", "5/1h"), Map.of());

        assertThat(ApplicationRules.source(null, Map.of(), loader).load())
                .isEqualTo(Map.of("sluice.rules.posts.rate", "5/1h"));
    }

    @Test
    void aRulesFileNamedExplicitlyIsTheWholeOfTheRules() throws IOException {
        Path rules = Files.writeString(dir.resolve("rules.properties"), "sluice.rules.named.rate=1/1s\n");
        ClassLoader loader = application("sluice.rules.posts.rate=5/1h\n",
                Map.of("sluice.rules.posts.key", "user"), Map.of());

        assertThat(ApplicationRules.source(rules.toString(), Map.of(), loader).load())
                .isEqualTo(Map.of("sluice.rules.named.rate", "1/1s"));
    }

    @Test
    void sluiceConfigInMicroProfileConfigNamesTheFileToo() throws IOException {
        Path rules = Files.writeString(dir.resolve("rules.properties"), "sluice.rules.named.rate=1/1s\n");
        ClassLoader loader = application(null, Map.of("sluice.rules.posts.key", "user"),
                Map.of("SLUICE_CONFIG", rules.toString()));

        RulesSource source = ApplicationRules.source(null, Map.of(), loader);

        assertThat(source.file()).contains(rules);
        assertThat(source.load()).isEqualTo(Map.of("sluice.rules.named.rate", "1/1s"));
    }

    @Test
    void noRulesAnywhereFailsNamingWhereTheyWereLookedFor() throws IOException {
        ClassLoader loader = application(null, Map.of("other.property", "x"), Map.of("PATH", "/usr/bin"));

        assertThatThrownBy(() -> ApplicationRules.source(null, Map.of(), loader).load())
                .isInstanceOf(ConfigException.class).hasMessageEndingWith("rules = (none found): expected sluice.* properties"
                        + " in MicroProfile Config (such as application.properties or microprofile-config.properties),"
                        + " classpath:sluice.properties, or a rules file named by sluice.config");
    }

    @Test
    void everyLoadReadsMicroProfileConfigAgainAndOneApplicationHasOneSource() throws IOException {
        Map<String, String> live = new ConcurrentHashMap<>(Map.of("sluice.rules.posts.rate", "5/1h"));
        ClassLoader loader = application(null, live, Map.of());
        RulesSource source = ApplicationRules.source(null, Map.of(), loader);
        assertThat(source.load()).isEqualTo(Map.of("sluice.rules.posts.rate", "5/1h"));

        live.put("sluice.rules.posts.rate", "7/1h");

        assertThat(source.load()).isEqualTo(Map.of("sluice.rules.posts.rate", "7/1h"));
        assertThat(source.pollable()).isTrue();
        // The filter and the CDI producer share one engine by equal sources.
        assertThat(ApplicationRules.source(null, Map.of(), loader)).isEqualTo(source);
        assertThat(ApplicationRules.source(null, Map.of("sluice.key-prefix", "x"), loader)).isNotEqualTo(source);
    }

    /**
     * A class loader whose class path holds {@code sluice.properties} (unless null) and whose MicroProfile Config has
     * {@code properties} (read live) and {@code environment} as environment variables.
     */
    private ClassLoader application(String sluiceProperties, Map<String, String> properties,
                                    Map<String, String> environment) throws IOException {
        Path classes = Files.createDirectories(dir.resolve("classes-" + registered.size()));
        if (sluiceProperties != null) Files.writeString(classes.resolve("sluice.properties"), sluiceProperties);
        ClassLoader loader = new URLClassLoader(new URL[]{classes.toUri().toURL()}, getClass().getClassLoader());
        SmallRyeConfig config = new SmallRyeConfigBuilder().forClassLoader(loader).addDefaultInterceptors()
                .withSources(new LiveSource(properties),
                        new EnvConfigSource(environment, MicroProfileRulesTest.ENVIRONMENT))
                .build();
        ConfigProviderResolver.instance().registerConfig(config, loader);
        registered.add(loader);
        return loader;
    }

    /** {@code application.properties} that the test changes under a running application. */
    private record LiveSource(Map<String, String> properties) implements ConfigSource {
        @Override
        public Set<String> getPropertyNames() {
            return properties.keySet();
        }

        @Override
        public String getValue(String name) {
            return properties.get(name);
        }

        @Override
        public String getName() {
            return "application.properties";
        }

        @Override
        public int getOrdinal() {
            return MicroProfileRulesTest.PROPERTIES_FILE;
        }
    }
}
