package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.rule.ConfigLoader;
import io.sluice.testing.TestRedis;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An application whose rules are only in MicroProfile Config (SmallRye Config, as Quarkus and WildFly have it), in a
 * real Weld container on a real Redis: no rules file anywhere, {@code @Limited} enforces the limit its properties
 * give, an environment variable overrides one, and {@code Sluice.reload()} reads MicroProfile Config again.
 */
class MicroProfileConfigCdiTest {

    @Test
    void limitsComeFromMicroProfileConfigPropertiesAloneAndAReloadReadsThemAgain() {
        Map<String, String> properties = new ConcurrentHashMap<>(Map.of(
                "sluice.redis.address", TestRedis.address(),
                "sluice.key-prefix", "sluice-cdi-mp-test-" + UUID.randomUUID(),
                "sluice.backend-timeout", "5s",
                "sluice.rules.images.rate", "3/1h",
                "sluice.rules.images.key", "global"));
        // The environment variable wins over the properties file, as in MicroProfile Config's default ordinals.
        Map<String, String> environment = Map.of("SLUICE_RULES_IMAGES_KEY", "user");
        ClassLoader application = new URLClassLoader(new URL[0], getClass().getClassLoader());
        SmallRyeConfig config = new SmallRyeConfigBuilder().forClassLoader(application).addDefaultInterceptors()
                .withSources(new ApplicationProperties(properties), new EnvConfigSource(environment, 300)).build();
        ConfigProviderResolver.instance().registerConfig(config, application);
        System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(application);
        WeldContainer container = CdiTesting.weld(Images.class).initialize();
        try {
            Images images = container.select(Images.class).get();
            Sluice sluice = container.select(Sluice.class).get();
            for (int i = 0; i < 3; i++) assertThat(images.generate("ann")).isEqualTo("image for ann");
            assertThatThrownBy(() -> images.generate("ann")).isInstanceOfSatisfying(LimitExceededException.class,
                    e -> assertThat(e.limit()).isEqualTo(3));
            assertThat(images.generate("bob")).as("keyed by user, from the environment variable")
                    .isEqualTo("image for bob");

            properties.put("sluice.rules.images.rate", "5/1h");
            assertThat(sluice.reload()).isTrue();
            assertThat(images.generate("ann")).as("3 used of 5").isEqualTo("image for ann");
            assertThat(images.generate("ann")).isEqualTo("image for ann");
            assertThatThrownBy(() -> images.generate("ann")).isInstanceOfSatisfying(LimitExceededException.class,
                    e -> assertThat(e.limit()).isEqualTo(5));
        } finally {
            container.close();
            thread.setContextClassLoader(previous);
            ConfigProviderResolver.instance().releaseConfig(config);
        }
    }

    @ApplicationScoped
    public static class Images {
        @Limited("images")
        public String generate(@LimitKey String user) {
            return "image for " + user;
        }
    }

    /** {@code microprofile-config.properties} that the test changes under the running application. */
    private record ApplicationProperties(Map<String, String> properties) implements ConfigSource {
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
            return "microprofile-config.properties";
        }

        @Override
        public int getOrdinal() {
            return 100;
        }
    }
}
