package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.rule.ConfigLoader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.SecurityContext;
import jakarta.security.enterprise.authentication.mechanism.http.AuthenticationParameters;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.security.spi.SecurityServices;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code when}, {@code exempt} and {@code key=user|ip} through {@code @Limited}: in Weld SE from the caller principal
 * (with and without {@code @LimitKey}), and in Weld Servlet in embedded Jetty 12 from the current request (its client
 * address and an attribute the application set).
 */
class AudienceInterceptorTest {
    private static volatile String caller;

    private static final SecurityServices SECURITY = new SecurityServices() {
        @Override
        public Principal getPrincipal() {
            String name = caller;
            return name == null ? null : () -> name;
        }

        @Override
        public void cleanup() {
        }
    };

    private static void rejectedBy(String rule, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo(rule));
    }

    @Test
    void whenAndExemptFromTheCallerPrincipal() {
        var rules = CdiTesting.rulesFile(
                "sluice.rules.members.rate=2/1h", "sluice.rules.members.key=user", "sluice.rules.members.when=authenticated",
                "sluice.rules.guests.rate=1/1h", "sluice.rules.guests.key=global", "sluice.rules.guests.when=anonymous",
                "sluice.rules.ops.rate=1/1h", "sluice.rules.ops.key=user", "sluice.rules.ops.exempt=user:monitor");
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, rules.toString());
        try (WeldContainer container = CdiTesting.weld(Service.class).addServices(SECURITY).initialize()) {
            Service service = container.select(Service.class).get();
            caller = "alice";
            assertThat(service.call()).isEqualTo("called");
            assertThat(service.call()).isEqualTo("called");
            rejectedBy("members", service::call);
            caller = "bob";
            assertThat(service.call()).isEqualTo("called");
            caller = null;
            assertThat(service.call()).isEqualTo("called");
            rejectedBy("guests", service::call);

            caller = "monitor";
            for (int i = 0; i < 5; i++) assertThat(service.op()).isEqualTo("op");
            caller = "alice";
            assertThat(service.op()).isEqualTo("op");
            rejectedBy("ops", service::op);

            // A @LimitKey argument is the key; who calls still decides whether the rule applies.
            caller = null;
            for (int i = 0; i < 5; i++) assertThat(service.keyed("tenant-1")).isEqualTo("tenant-1");
            caller = "carol";
            assertThat(service.keyed("tenant-1")).isEqualTo("tenant-1");
            assertThat(service.keyed("tenant-1")).isEqualTo("tenant-1");
            rejectedBy("members", () -> service.keyed("tenant-1"));
            caller = "monitor";
            for (int i = 0; i < 3; i++) assertThat(service.keyedOp("tenant-2")).isEqualTo("tenant-2");
            caller = "dave";
            assertThat(service.keyedOp("tenant-2")).isEqualTo("tenant-2");
            rejectedBy("ops", () -> service.keyedOp("tenant-2"));
        } finally {
            System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
            caller = null;
        }
    }

    /** Jakarta Security as an application server offers it: the caller and its roles. */
    @ApplicationScoped
    public static class Security implements SecurityContext {
        static volatile Set<String> roles = Set.of();

        @Override
        public Principal getCallerPrincipal() {
            String name = caller;
            return name == null ? null : () -> name;
        }

        @Override
        public <T extends Principal> Set<T> getPrincipalsByType(Class<T> type) {
            return Set.of();
        }

        @Override
        public boolean isCallerInRole(String role) {
            return caller != null && roles.contains(role);
        }

        @Override
        public boolean hasAccessToWebResource(String resource, String... methods) {
            return false;
        }

        @Override
        public AuthenticationStatus authenticate(HttpServletRequest request, HttpServletResponse response,
                                                 AuthenticationParameters parameters) {
            return AuthenticationStatus.NOT_DONE;
        }
    }

    @Test
    void aRoleFromJakartaSecurityOutsideAnHttpRequest() {
        var rules = CdiTesting.rulesFile("sluice.rules.ops.rate=1/1h", "sluice.rules.ops.key=user",
                "sluice.rules.ops.exempt=role:admin");
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, rules.toString());
        try (WeldContainer container = CdiTesting.weld(Operations.class, Security.class).addServices(SECURITY).initialize()) {
            Operations service = container.select(Operations.class).get();
            caller = "root";
            Security.roles = Set.of("admin");
            for (int i = 0; i < 5; i++) assertThat(service.op()).isEqualTo("op");
            for (int i = 0; i < 3; i++) assertThat(service.keyedOp("tenant-3")).isEqualTo("tenant-3");
            Security.roles = Set.of("user");
            assertThat(service.op()).isEqualTo("op");
            rejectedBy("ops", service::op);
        } finally {
            System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
            caller = null;
            Security.roles = Set.of();
        }
    }

    @Test
    void anAddressAndAnAttributeOfTheCurrentRequestExempt() throws Exception {
        WeldContainer container = CdiTesting.boot(CdiTesting.rulesFile(
                "sluice.rules.internal.rate=1/1h", "sluice.rules.internal.key=user|ip", "sluice.rules.internal.exempt=ip:127.0.0.0/8",
                "sluice.rules.staff.rate=2/1h", "sluice.rules.staff.key=user|ip", "sluice.rules.staff.exempt=attribute:example.trusted"),
                Api.class);
        CdiTesting.WebApp web = CdiTesting.jetty(container, context -> context.addServlet(new ServletHolder(new ApiServlet()), "/*"));
        try {
            HttpClient http = HttpClient.newHttpClient();
            for (int i = 0; i < 5; i++) assertThat(get(http, web.base() + "/internal", false)).isEqualTo(200);
            for (int i = 0; i < 4; i++) assertThat(get(http, web.base() + "/staff", true)).isEqualTo(200);
            assertThat(get(http, web.base() + "/staff", false)).isEqualTo(200);
            assertThat(get(http, web.base() + "/staff", false)).isEqualTo(200);
            assertThat(get(http, web.base() + "/staff", false)).isEqualTo(429);
            assertThat(get(http, web.base() + "/staff", true)).isEqualTo(200);
        } finally {
            web.stop();
            container.shutdown();
        }
    }

    private static int get(HttpClient http, String url, boolean trusted) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
        if (trusted) b.header("X-Demo-Trusted", "yes");
        return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @ApplicationScoped
    public static class Service {
        @Limited({"members", "guests"})
        public String call() {
            return "called";
        }

        @Limited("ops")
        public String op() {
            return "op";
        }

        @Limited("members")
        public String keyed(@LimitKey String tenant) {
            return tenant;
        }

        @Limited("ops")
        public String keyedOp(@LimitKey String tenant) {
            return tenant;
        }
    }

    @ApplicationScoped
    public static class Operations {
        @Limited("ops")
        public String op() {
            return "op";
        }

        @Limited("ops")
        public String keyedOp(@LimitKey String tenant) {
            return tenant;
        }
    }

    @ApplicationScoped
    public static class Api {
        @Limited("internal")
        public String internal() {
            return "internal";
        }

        @Limited("staff")
        public String staff() {
            return "staff";
        }
    }

    /** The application: it trusts a caller after its own check (here a header, standing for a client certificate). */
    public static class ApiServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if ("yes".equals(req.getHeader("X-Demo-Trusted"))) req.setAttribute("example.trusted", Boolean.TRUE);
            Api api = CDI.current().select(Api.class).get();
            try {
                resp.getWriter().write(req.getPathInfo().equals("/internal") ? api.internal() : api.staff());
            } catch (LimitExceededException e) {
                resp.setStatus(429);
            }
        }
    }
}
