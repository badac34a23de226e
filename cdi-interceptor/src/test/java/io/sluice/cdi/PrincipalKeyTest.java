package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.rule.ConfigLoader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.SessionScoped;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.security.spi.SecurityServices;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.security.Principal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rules keyed {@code user} without {@code @LimitKey} take the container's caller principal. */
class PrincipalKeyTest {
    private static volatile String caller;

    @Test
    void userKeyIsTheCallerPrincipal() {
        var rules = CdiTesting.rulesFile("sluice.rules.peruser.rate=1/1h", "sluice.rules.peruser.key=user",
                "sluice.rules.peruser.on-missing-key=deny");
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, rules.toString());
        SecurityServices security = new SecurityServices() {
            @Override
            public Principal getPrincipal() {
                String name = caller;
                return name == null ? null : () -> name;
            }

            @Override
            public void cleanup() {
            }
        };
        try (WeldContainer container = CdiTesting.weld(Service.class, Conversation.class)
                .addServices(security).initialize()) {
            Service service = container.select(Service.class).get();
            caller = "alice";
            assertThat(service.call()).isEqualTo("called");
            assertThatThrownBy(service::call).isInstanceOf(LimitExceededException.class);
            caller = "bob";
            assertThat(service.call()).isEqualTo("called");
            caller = null;
            assertThatThrownBy(service::call)
                    .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo("peruser"));
        } finally {
            System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
            caller = null;
        }
    }

    @ApplicationScoped
    public static class Service {
        @Limited("peruser")
        public String call() {
            return "called";
        }
    }

    /** A passivating bean may be limited: the interceptor is passivation capable. */
    @SessionScoped
    public static class Conversation implements Serializable {
        private static final long serialVersionUID = 1L;

        @Limited("peruser")
        public String call() {
            return "called";
        }
    }
}
