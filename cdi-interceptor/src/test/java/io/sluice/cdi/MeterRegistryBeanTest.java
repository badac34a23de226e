package io.sluice.cdi;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.LimitExceededException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The produced Sluice publishes its meters in the application's {@code MeterRegistry} bean (Weld, real Redis). */
class MeterRegistryBeanTest {
    @Test
    void theInterceptorCountsInTheApplicationsRegistryBean() {
        var rules = CdiTesting.rulesFile("sluice.rules.images.rate=2/1h", "sluice.rules.images.key=global");
        try (WeldContainer container = CdiTesting.boot(rules, Service.class, Registry.class)) {
            Service service = container.select(Service.class).get();
            assertThat(service.generate()).isEqualTo("image");
            assertThat(service.generate()).isEqualTo("image");
            assertThatThrownBy(service::generate).isInstanceOf(LimitExceededException.class);

            MeterRegistry registry = container.select(MeterRegistry.class).get();
            Set<String> series = new TreeSet<>();
            for (Counter c : registry.find("sluice.requests").counters()) {
                series.add(c.getId().getTag("rule") + "/" + c.getId().getTag("type") + "/" + c.getId().getTag("result")
                        + "=" + (long) c.count());
            }
            assertThat(series).containsExactly("images/rate/allowed=2", "images/rate/rejected=1");
        }
    }

    @ApplicationScoped
    public static class Service {
        @Limited("images")
        public String generate() {
            return "image";
        }
    }

    /** The application's registry: a singleton (MeterRegistry has no no-argument constructor for a client proxy). */
    public static class Registry {
        @Produces
        @Singleton
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }
}
