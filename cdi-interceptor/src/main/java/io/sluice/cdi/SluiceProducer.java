package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.rule.ConfigLoader;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Singleton;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.function.Supplier;

/**
 * The default, application-wide {@link Sluice}: built on first use from the rules file (the system
 * property {@code sluice.config}, the environment variable {@code SLUICE_CONFIG}, then
 * {@code classpath:sluice.properties}) and closed when the container shuts down. When the application
 * has a {@link RedissonClient} bean, Sluice uses it (and leaves it open) instead of creating its own.
 *
 * <p>{@link Sluice} is final, so it cannot have a client proxy: it is produced in the {@link Singleton}
 * pseudo-scope, which gives one instance per container without a proxy. To supply your own, produce one
 * as an enabled alternative: {@code @Produces @Singleton @Alternative @Priority(100) Sluice mySluice()}.
 *
 * <p>In a web application the engine is shared with the servlet filter through the servlet context
 * attribute {@code io.sluice.Sluice}: whichever of the two starts first builds it, so the application
 * has one engine and one Redis client.
 *
 * <p>Registered by {@link SluiceExtension}; thread-safe.
 */
@ApplicationScoped
public class SluiceProducer {

    /** The parsed rules file, as the default producer reads it. */
    static RuleSet loadRules() {
        return RuleParser.parse(ConfigLoader.load(null, Map.of(), contextClassLoader()));
    }

    private static final boolean SERVLET_PRESENT = Classes.present("jakarta.servlet.ServletContext");

    /** Set when the engine is shared through the servlet context: it is released there, not closed here. */
    private volatile Object published;

    @Produces
    @Singleton
    Sluice sluice(Instance<RedissonClient> redisson, BeanManager beanManager) {
        Supplier<Sluice> build = () -> {
            Sluice.Builder builder = Sluice.builder().rules(loadRules()).classLoader(contextClassLoader());
            if (redisson.isResolvable()) builder.redisson(redisson.get());
            return builder.build();
        };
        if (SERVLET_PRESENT) {
            ServletContexts.Published shared = ServletContexts.obtain(beanManager, build);
            if (shared != null) {
                published = shared;
                return shared.shared().sluice();
            }
        }
        return build.get();
    }

    void close(@Disposes Sluice sluice) {
        if (published instanceof ServletContexts.Published shared && shared.shared().sluice() == sluice) {
            ServletContexts.release(shared);
        } else {
            sluice.close();
        }
    }


    private static ClassLoader contextClassLoader() {
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        return tccl != null ? tccl : SluiceProducer.class.getClassLoader();
    }
}
