package io.sluice.examples.cdi;

import io.sluice.Sluice;
import io.sluice.rule.ConfigLoader;
import io.sluice.rule.RuleParser;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.util.HashMap;
import java.util.Map;

/**
 * The app's own {@link Sluice}, in place of the default producer (which reads {@code sluice.config} or
 * {@code classpath:sluice.properties}): the rules file {@code sluice-cdi-example.properties} with the Redis
 * address the app was started with. No system property is set, so several apps can run in one JVM.
 */
@ApplicationScoped
public class ExampleSluice {
    static final String RULES = "classpath:sluice-cdi-example.properties";

    @Produces
    @Singleton
    @Alternative
    @Priority(100)
    Sluice sluice(CdiExampleApp.Settings settings) {
        ClassLoader loader = ExampleSluice.class.getClassLoader();
        Map<String, String> overrides = new HashMap<>(settings.overrides());
        overrides.put("sluice.redis.address", settings.redisAddress());
        Map<String, String> properties = ConfigLoader.load(RULES, overrides, loader);
        return Sluice.builder().rules(RuleParser.parse(properties)).classLoader(loader).build();
    }

    void close(@Disposes Sluice sluice) {
        sluice.close();
    }
}
