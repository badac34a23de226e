package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.micrometer.Micrometer;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.rule.RulesSource;
import io.sluice.servlet.ApplicationRules;
import io.sluice.servlet.ApplicationSluice;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Singleton;

import java.util.Map;

/**
 * The default, application-wide {@link Sluice}: built on first use from the rules file (the system
 * property {@code sluice.config}, the environment variable {@code SLUICE_CONFIG}, then
 * {@code classpath:sluice.properties}), or, where MicroProfile Config is present, from its {@code sluice.*}
 * properties as well ({@link ApplicationRules} gives the precedence), and closed when the container shuts down.
 * When the application has a {@code RedissonClient} bean, Sluice uses it (and leaves it open) instead of creating
 * its own. With Micrometer on the class path, the meters go to the application's {@code MeterRegistry} bean when
 * there is one, else to Micrometer's global registry.
 *
 * <p>{@link Sluice} is final, so it cannot have a client proxy: it is produced in the {@link Singleton}
 * pseudo-scope, which gives one instance per container without a proxy. To supply your own, produce one
 * as an enabled alternative: {@code @Produces @Singleton @Alternative @Priority(100) Sluice mySluice()}.
 *
 * <p>Each rejection is also fired as a CDI event of type {@link io.sluice.DecisionEvent} ({@code @Observes} or
 * {@code @ObservesAsync}), off the request's thread.
 *
 * <p>The engine keeps the rules every deployed {@link Limited} names: a reload that would remove one is refused
 * ({@link Sluice#requireRules}).
 *
 * <p>The engine is shared with the servlet filter when both read the same rules ({@link ApplicationSluice}):
 * whichever starts first builds it, the last to stop closes it, so a web application has one engine and one
 * Redis client.
 *
 * <p>Registered by {@link SluiceExtension}; thread-safe.
 */
@ApplicationScoped
public class SluiceProducer {

    /** The parsed rules, as the default producer reads them. */
    static RuleSet loadRules() {
        return RuleParser.parse(rulesSource().load());
    }

    /** Where the default producer's rules come from. */
    static RulesSource rulesSource() {
        return ApplicationRules.source(null, Map.of(), contextClassLoader());
    }

    /** This producer's share of the application's engine; null when built around the application's own client. */
    private volatile ApplicationSluice.Share share;
    /** The CDI events of rejections, registered on the produced engine until the container disposes of it. */
    private volatile AutoCloseable rejectionEvents;

    @Produces
    @Singleton
    Sluice sluice(Instance<Object> beans, BeanManager beanManager) {
        ClassLoader loader = contextClassLoader();
        Object meters = meterRegistry(beans);
        // Read again by Sluice.reload() and sluice.reload.
        RulesSource source = rulesSource();
        var redisson = beans.select(RedissonBackendProvider.clientType());
        Sluice sluice;
        if (redisson.isResolvable()) {
            sluice = Sluice.builder().source(source).classLoader(loader)
                    .backend(RedissonBackendProvider.using(redisson.get())).meterRegistry(meters).build();
            ApplicationSluice.applyRequired(source, sluice);
        } else {
            // The same rules as the servlet filter's: one engine (and Redis client) for both, whichever starts first.
            ApplicationSluice.Share s = ApplicationSluice.obtain(source,
                    () -> Sluice.builder().source(source).classLoader(loader).meterRegistry(meters).build());
            share = s;
            sluice = s.sluice();
        }
        rejectionEvents = sluice.listen(new RejectionEvents(beanManager));
        return sluice;
    }

    /** The application's {@code MeterRegistry} bean, when Micrometer is present and there is exactly one; else null. */
    static Object meterRegistry(Instance<Object> beans) {
        return Micrometer.registryType().map(type -> beans.select(type))
                .filter(Instance::isResolvable).map(Instance::get).orElse(null);
    }

    void close(@Disposes Sluice sluice) throws Exception {
        AutoCloseable events = rejectionEvents;
        if (events != null) events.close();
        ApplicationSluice.Share s = share;
        if (s != null && s.sluice() == sluice) s.release();
        else sluice.close();
    }

    private static ClassLoader contextClassLoader() {
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        return tccl != null ? tccl : SluiceProducer.class.getClassLoader();
    }
}
