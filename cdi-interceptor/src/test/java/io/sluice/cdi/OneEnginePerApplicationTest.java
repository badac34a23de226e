package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.filter.SluiceFilter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A filter declared as in {@code web.xml} (built by the container, reading the rules file) and the CDI producer
 * in one application: one engine, whichever starts first (here the producer), and a request that passes the
 * filter's rule and then a {@code @Limited} bean naming the same rule is counted once.
 */
class OneEnginePerApplicationTest {

    @Test
    void theFilterUsesTheProducersEngineAndARequestIsCountedOncePerRule() throws Exception {
        Path rules = CdiTesting.rulesFile(
                "sluice.rules.shared.paths=/both",
                "sluice.rules.shared.key=header:X-User",
                "sluice.rules.shared.rate=4/1h");
        WeldContainer container = CdiTesting.boot(rules, Api.class);
        try {
            Sluice fromCdi = container.select(Sluice.class).get();
            SluiceFilter filter = new SluiceFilter();
            CdiTesting.WebApp web = CdiTesting.jetty(container, context -> {
                FilterHolder holder = new FilterHolder(filter);
                holder.setInitParameter("config", rules.toString());
                // ASYNC too: a request the filter suspends while Redis decides is dispatched back through it.
                context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
                context.addServlet(new ServletHolder(new BothServlet()), "/both");
            });
            try {
                assertThat(filter.sluice()).as("the filter's engine").isSameAs(fromCdi);
                HttpClient http = HttpClient.newHttpClient();
                String user = "dana-" + UUID.randomUUID();
                for (int remaining = 3; remaining >= 0; remaining--) {
                    HttpResponse<String> r = get(http, web.base() + "/both", user);
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(r.body()).isEqualTo("bean:" + user);
                    assertThat(r.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(remaining));
                }
                HttpResponse<String> rejected = get(http, web.base() + "/both", user);
                assertThat(rejected.statusCode()).isEqualTo(429);
                assertThat(rejected.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
            } finally {
                web.stop();
            }
            // The filter gave its share back; the producer's engine still decides.
            String other = "erin-" + UUID.randomUUID();
            assertThat(container.select(Api.class).get().call(other)).isEqualTo("bean:" + other);
        } finally {
            container.shutdown();
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url, String user) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("X-User", user).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ApplicationScoped
    public static class Api {
        @Limited("shared")
        public String call(@LimitKey String user) {
            return "bean:" + user;
        }
    }

    /** Matched by the filter's rule, and calls the bean naming the same rule. */
    public static class BothServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write(CDI.current().select(Api.class).get().call(req.getHeader("X-User")));
        }
    }
}
