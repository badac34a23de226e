package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.micrometer.Micrometer;
import io.sluice.rule.ConfigLoader;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.redisson.api.RedissonClient;

import java.util.Map;

/**
 * The default, application-wide {@link Sluice}: built on first use from the rules file (the system
 * property {@code sluice.config}, the environment variable {@code SLUICE_CONFIG}, then
 * {@code classpath:sluice.properties}) and closed when the container shuts down. When the application
 * has a {@link RedissonClient} bean, Sluice uses it (and leaves it open) instead of creating its own. With
 * Micrometer on the class path, the meters go to the application's {@code MeterRegistry} bean when there is
 * one, else to Micrometer's global registry.
 *
 * <p>{@link Sluice} is final, so it cannot have a client proxy: it is produced in the {@link Singleton}
 * pseudo-scope, which gives one instance per container without a proxy. To supply your own, produce one
 * as an enabled alternative: {@code @Produces @Singleton @Alternative @Priority(100) Sluice mySluice()}.
 *
 * <p>Registered by {@link SluiceExtension}; thread-safe.
 */
@ApplicationScoped
public class SluiceProducer {

    /** The parsed rules file, as the default producer reads it. */
    static RuleSet loadRules() {
        return RuleParser.parse(ConfigLoader.load(null, Map.of(), contextClassLoader()));
    }

    @Produces
    @Singleton
    Sluice sluice(Instance<RedissonClient> redisson, Instance<Object> beans) {
        Sluice.Builder builder = Sluice.builder().rules(loadRules()).classLoader(contextClassLoader());
        if (redisson.isResolvable()) builder.redisson(redisson.get());
        builder.meterRegistry(meterRegistry(beans));
        return builder.build();
    }

    /** The application's {@code MeterRegistry} bean, when Micrometer is present and there is exactly one; else null. */
    static Object meterRegistry(Instance<Object> beans) {
        return Micrometer.registryType().map(type -> beans.select(type))
                .filter(Instance::isResolvable).map(Instance::get).orElse(null);
    }

    void close(@Disposes Sluice sluice) {
        sluice.close();
    }

    private static ClassLoader contextClassLoader() {
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        return tccl != null ? tccl : SluiceProducer.class.getClassLoader();
    }
}
