package io.sluice.spring;

import io.sluice.Sluice;
import io.sluice.filter.RejectionHandler;
import io.sluice.filter.SluiceFilter;
import io.sluice.redisson.RedissonBackendProvider;
import jakarta.servlet.DispatcherType;
import org.springframework.aop.Advisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import java.util.EnumSet;

/**
 * Sluice in a Spring Boot application: one {@link Sluice} built from the {@code sluice.*} properties of the
 * Environment ({@link EnvironmentRules}) and closed with the context, on the application's Redisson client
 * bean when it has one (else on {@code sluice.redis.*}), its meters in the application's Micrometer
 * {@code MeterRegistry}; in a servlet web application, the {@link SluiceFilter} on {@code /*} after Spring
 * Security's filter chain, and {@link LimitExceededHandler} answering a {@code LimitExceededException} as the filter
 * answers a rejection; {@link Limited} on the application's beans; with Actuator, the endpoint {@link SluiceEndpoint} when it is exposed. docs/spring-boot.md
 * says what each does and how to replace it.
 */
@AutoConfiguration
public class SluiceAutoConfiguration {
    /**
     * The filter's order property. Outside {@code sluice.*}: those are the rules file's names, which core parses
     * and which know nothing of Spring.
     */
    public static final String FILTER_ORDER_PROPERTY = "sluice-spring.filter-order";
    /** Spring Security's own property for the order of its filter chain. */
    static final String SECURITY_FILTER_ORDER_PROPERTY = "spring.security.filter.order";
    /**
     * Spring Security's default filter chain order ({@code SecurityProperties.DEFAULT_FILTER_ORDER}), named here so
     * that this module needs no Spring Security. Spring's forwarded-header filter runs first of all, at
     * {@code Ordered.HIGHEST_PRECEDENCE}.
     */
    static final int SECURITY_DEFAULT_FILTER_ORDER = -100;
    private static final String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";

    /**
     * The application's engine, closed with the context: on the application's own Redisson client when it has exactly
     * one (Sluice uses it as configured and leaves it open), else on a client of its own made from {@code sluice.redis.*}.
     *
     * @param environment the application's environment, whose {@code sluice.*} properties are the rules
     * @param beans       where the Redisson client and the Micrometer registry are looked up
     * @return the engine
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Sluice sluice(ConfigurableEnvironment environment, ConfigurableListableBeanFactory beans) {
        Sluice.Builder builder = Sluice.builder()
                .source(EnvironmentRules.source(environment))
                .classLoader(beans.getBeanClassLoader())
                .meterRegistry(meterRegistry(beans));
        // Looked up by the type sluice-redisson names, so that only that module imports Redisson.
        var client = beans.getBeanProvider(RedissonBackendProvider.clientType()).getIfUnique();
        if (client != null) builder.backend(RedissonBackendProvider.using(client));
        return builder.build();
    }

    /** The application's Micrometer registry, when Micrometer is there and one registry is primary; else null. */
    private static Object meterRegistry(ConfigurableListableBeanFactory beans) {
        ClassLoader loader = beans.getBeanClassLoader();
        if (!ClassUtils.isPresent(METER_REGISTRY, loader)) return null;
        return beans.getBeanProvider(ClassUtils.resolveClassName(METER_REGISTRY, loader)).getIfUnique();
    }

    /**
     * {@link Limited} on Spring beans: an advisor for Spring's auto-proxying (an infrastructure bean, as
     * {@code @Transactional}'s is, so no AspectJ is needed) and the start-up check of every {@link Limited}.
     */
    @Configuration(proxyBeanMethods = false)
    static class Annotations {
        /**
         * Before {@code @Transactional} and {@code @Cacheable} (both at the lowest precedence by default): a rejected call
         * opens no transaction, and a transaction never waits on Redis.
         */
        static final int ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 1_000;

        /**
         * Limits calls of methods and classes annotated {@link Limited}.
         *
         * @param sluice the engine, looked up at the first call
         * @return the advisor
         */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static Advisor sluiceLimitedAdvisor(ObjectProvider<Sluice> sluice) {
            Pointcut limited = new ComposablePointcut(new AnnotationMatchingPointcut(Limited.class, true))
                    .union(new AnnotationMatchingPointcut(null, Limited.class, true));
            DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(limited, new LimitedInterceptor(sluice));
            advisor.setOrder(ADVISOR_ORDER);
            return advisor;
        }

        /**
         * Fails the context's start on a mistaken {@link Limited}, and keeps the rules the beans name across reloads.
         *
         * @param beans  where the annotated beans are found
         * @param sluice the engine whose rules they name
         * @return the check
         */
        @Bean
        static LimitedBeans sluiceLimitedBeans(ConfigurableListableBeanFactory beans, ObjectProvider<Sluice> sluice) {
            return new LimitedBeans(beans, sluice);
        }
    }

    /** With Actuator: the endpoint {@code sluice}, when exposed. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Actuator {
        /**
         * The rules in effect and a key's usage.
         *
         * @param sluice the engine
         * @return the endpoint
         */
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        SluiceEndpoint sluiceEndpoint(Sluice sluice) {
            return new SluiceEndpoint(sluice);
        }
    }

    /** The filter and the exception handler of a servlet web application. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class Web {
        /**
         * The filter on {@code /*} for {@code REQUEST} dispatches (it applies once per request and follows forwards,
         * includes and async dispatches itself), around the application's engine, after Spring Security.
         *
         * @param sluice      the engine, which the filter does not close
         * @param handler     the application's rejection handler, if it has one
         * @param environment where the order is read
         * @return the registration
         */
        @Bean
        @ConditionalOnMissingBean(name = "sluiceFilter")
        FilterRegistrationBean<SluiceFilter> sluiceFilter(Sluice sluice, ObjectProvider<RejectionHandler> handler,
                                                          Environment environment) {
            SluiceFilter filter = new SluiceFilter(sluice);
            handler.ifUnique(filter::setRejectionHandler);
            FilterRegistrationBean<SluiceFilter> registration = new FilterRegistrationBean<>(filter);
            registration.setName("sluice");
            registration.addUrlPatterns("/*");
            registration.setDispatcherTypes(EnumSet.of(DispatcherType.REQUEST));
            registration.setAsyncSupported(true);
            registration.setOrder(filterOrder(environment));
            return registration;
        }

        /** The order property, else just after Spring Security's filter chain wherever it is ordered. */
        static int filterOrder(Environment environment) {
            int security = environment.getProperty(SECURITY_FILTER_ORDER_PROPERTY, Integer.class, SECURITY_DEFAULT_FILTER_ORDER);
            return environment.getProperty(FILTER_ORDER_PROPERTY, Integer.class, security + 1);
        }

        /** With Spring MVC: {@code LimitExceededException} from a controller or the beans it calls. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
        static class Mvc {
            /**
             * Answers a {@code LimitExceededException} as the filter answers a rejection.
             *
             * @return the handler
             */
            @Bean
            @ConditionalOnMissingBean
            LimitExceededHandler sluiceLimitExceededHandler() {
                return new LimitExceededHandler();
            }
        }
    }
}
