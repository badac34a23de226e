package io.sluice.spring;

import io.sluice.ConfigException;
import io.sluice.Sluice;
import io.sluice.filter.SluiceFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.env.MockEnvironment;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What fails start-up, and the filter's order; the engine at work is tested in examples/spring-boot. */
class SluiceAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class));

    @Test
    void aBadValueFailsStartUpNamingPropertyValueAndExpectedForm() {
        runner.withPropertyValues("sluice.rules.posts.rate=ten/h").run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = rootCause(context.getStartupFailure());
            assertThat(cause).isInstanceOf(ConfigException.class).hasMessage(
                    "Invalid Sluice configuration: sluice.rules.posts.rate = \"ten/h\": expected <permits>/<period> such"
                            + " as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms (permits from 1 to 1000000000, a period from 1ms"
                            + " to 366d)");
        });
    }

    @Test
    void anUnknownSluicePropertyFailsStartUp() {
        runner.withPropertyValues("sluice.rules.posts.rate=5/1m", "sluice.colour=blue").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("Invalid Sluice configuration: sluice.colour = \"blue\": expected a known property");
        });
    }

    @Test
    void anApplicationsOwnSluiceReplacesTheAutoConfiguredOneAndTheFilterAppliesIt() {
        Sluice own = Sluice.builder().properties(Map.of("sluice.rules.posts.rate", "5/1m",
                "sluice.rules.posts.paths", "/api/posts")).inMemory().build();
        try {
            new WebApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class))
                    .withBean(Sluice.class, () -> own)
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(Sluice.class)
                                .hasSingleBean(LimitExceededHandler.class);
                        @SuppressWarnings("unchecked")
                        FilterRegistrationBean<SluiceFilter> filter = context.getBean(FilterRegistrationBean.class);
                        assertThat(filter.getFilter().sluice()).isSameAs(own);
                        assertThat(filter.getUrlPatterns()).containsExactly("/*");
                        assertThat(filter.isAsyncSupported()).isTrue();
                    });
        } finally {
            own.close();
        }
    }

    @Test
    void withoutAServletWebApplicationThereIsNoFilterNorHandler() {
        try (Sluice own = Sluice.builder().properties(Map.of("sluice.rules.posts.rate", "5/1m")).inMemory().build()) {
            runner.withBean(Sluice.class, () -> own).run(context -> assertThat(context).hasNotFailed()
                    .hasSingleBean(Sluice.class).doesNotHaveBean(FilterRegistrationBean.class)
                    .doesNotHaveBean(LimitExceededHandler.class));
        }
    }

    @Test
    void theEndpointIsThereOnlyWhenExposedAndNeedsNoActuatorOtherwise() {
        try (Sluice own = Sluice.builder().properties(Map.of("sluice.rules.posts.rate", "5/1m")).inMemory().build()) {
            WebApplicationContextRunner web = new WebApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class))
                    .withBean(Sluice.class, () -> own);
            web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SluiceEndpoint.class));
            web.withPropertyValues("management.endpoints.web.exposure.include=sluice")
                    .run(context -> assertThat(context).hasNotFailed().hasSingleBean(SluiceEndpoint.class));
            web.withPropertyValues("management.endpoints.web.exposure.include=sluice")
                    .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                    .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SluiceEndpoint.class)
                            .hasSingleBean(FilterRegistrationBean.class));
        }
    }

    @Test
    void theFilterRunsJustAfterSpringSecurityUnlessOrderedByItsProperty() {
        assertThat(SluiceAutoConfiguration.Web.filterOrder(new MockEnvironment())).isEqualTo(-99);
        assertThat(SluiceAutoConfiguration.Web.filterOrder(new MockEnvironment()
                .withProperty("spring.security.filter.order", "10"))).isEqualTo(11);
        assertThat(SluiceAutoConfiguration.Web.filterOrder(new MockEnvironment()
                .withProperty("spring.security.filter.order", "10")
                .withProperty(SluiceAutoConfiguration.FILTER_ORDER_PROPERTY, "-5000"))).isEqualTo(-5000);
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t;
    }
}
