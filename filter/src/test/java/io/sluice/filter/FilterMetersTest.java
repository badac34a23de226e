package io.sluice.filter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.testing.TestRedis;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter publishes its meters in the registry the application put in the servlet context attribute
 * {@link SluiceFilter#METER_REGISTRY_ATTRIBUTE}: real HTTP on an embedded Jetty, a real Redis, exact counts.
 */
class FilterMetersTest {
    @Test
    void theFilterCountsInTheContextsRegistry() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.setAttribute(SluiceFilter.METER_REGISTRY_ATTRIBUTE, registry);
        FilterHolder sluice = new FilterHolder(SluiceFilter.class);
        sluice.setInitParameters(Map.of(
                "sluice.redis.address", TestRedis.address(),
                "sluice.await-backend", "60s",
                "sluice.backend-timeout", "5s",
                "sluice.key-prefix", "filter-meters-" + UUID.randomUUID(),
                "sluice.rules.posts.paths", "/hello",
                "sluice.rules.posts.rate", "2/1h",
                "sluice.rules.anon.paths", "/hello",
                "sluice.rules.anon.key", "user",
                "sluice.rules.anon.rate", "1/1h"));
        context.addFilter(sluice, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.getWriter().write("hello");
            }
        }), "/hello");
        server.setHandler(context);
        server.start();
        try {
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                statuses.add(given().port(connector.getLocalPort()).get("/hello").statusCode());
            }
            assertThat(statuses).containsExactly(200, 200, 429);
            // Anonymous requests: the user-keyed rule is skipped (on-missing-key=skip by default).
            assertThat(series(registry)).containsExactly(
                    "anon/rate/skipped=3", "posts/rate/allowed=2", "posts/rate/rejected=1");
        } finally {
            server.stop();
        }
        assertThat(registry.getMeters()).as("the filter's engine closed with the context").isEmpty();
    }

    private static Set<String> series(SimpleMeterRegistry registry) {
        Set<String> out = new TreeSet<>();
        for (Counter c : registry.find("sluice.requests").counters()) {
            out.add(c.getId().getTag("rule") + "/" + c.getId().getTag("type") + "/" + c.getId().getTag("result")
                    + "=" + (long) c.count());
        }
        return out;
    }
}
