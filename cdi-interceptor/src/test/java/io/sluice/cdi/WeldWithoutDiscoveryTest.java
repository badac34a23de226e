package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.rule.ConfigLoader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Weld SE with bean discovery off (as the CDI example boots it) loads no extension from {@code META-INF/services}:
 * without the one line docs/cdi.md shows, {@code addExtension(new SluiceExtension())}, every {@code @Limited} is
 * ignored and an unknown rule name does not fail. With it, limits hold and a bad name fails deployment.
 */
class WeldWithoutDiscoveryTest {
    private final Path rules = CdiTesting.rulesFile("sluice.rules.known.rate=1/1h", "sluice.rules.known.key=global");

    @AfterEach
    void clear() {
        System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
    }

    /** As docs/cdi.md's first Java snippet boots it. */
    private static Weld documented(Class<?> bean) {
        return new Weld("sluice-doc-" + UUID.randomUUID()).disableDiscovery()
                .addBeanClasses(bean)
                .addExtension(new SluiceExtension());
    }

    @Test
    void withTheDocumentedLineLimitsHold() {
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, rules.toString());
        try (WeldContainer c = documented(Known.class).initialize()) {
            Known bean = c.select(Known.class).get();
            assertThat(bean.call()).isEqualTo("ran");
            assertThatThrownBy(bean::call).isInstanceOfSatisfying(LimitExceededException.class,
                    e -> assertThat(e.rule()).isEqualTo("known"));
        }
    }

    @Test
    void withTheDocumentedLineAnUnknownRuleFailsDeployment() {
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, rules.toString());
        assertThatThrownBy(() -> documented(Unknown.class).initialize().shutdown())
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("@Limited on " + Unknown.class.getName() + ".call names unknown rule 'nope'");
    }

    /** Why the line is in the first snippet: Weld SE without discovery runs the method as if unannotated. */
    @Test
    void withoutItWeldSeIgnoresLimited() {
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, rules.toString());
        try (WeldContainer c = new Weld("sluice-missing-" + UUID.randomUUID()).disableDiscovery()
                .addBeanClasses(Known.class, Unknown.class).initialize()) {
            Known bean = c.select(Known.class).get();
            assertThat(bean.call()).isEqualTo("ran");
            assertThat(bean.call()).as("second call of a 1/1h rule, not intercepted").isEqualTo("ran");
            assertThat(c.select(Unknown.class).get().call()).isEqualTo("ran");
        }
    }

    @ApplicationScoped
    public static class Known {
        @Limited("known")
        public String call() {
            return "ran";
        }
    }

    @ApplicationScoped
    public static class Unknown {
        @Limited("nope")
        public String call() {
            return "ran";
        }
    }
}
