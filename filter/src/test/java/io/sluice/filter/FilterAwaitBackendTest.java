package io.sluice.filter;

import io.sluice.Sluice;
import io.sluice.testing.RedisProcess;
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
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code sluice.await-backend} through the filter's {@code init}, over real HTTP on Jetty: with Redis down the
 * context starts after the wait and serves by {@code on-backend-failure}; the published engine's
 * {@code connected()} is the readiness check, and it turns true when Redis comes up.
 */
class FilterAwaitBackendTest {
    private static final Duration AWAIT = Duration.ofMillis(1500);

    @Test
    void initWaitsForRedisThenServesByTheFailurePolicyUntilItComesUp() throws Exception {
        int redisPort = TestRedis.freePort();
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        FilterHolder sluice = new FilterHolder(SluiceFilter.class);
        sluice.setInitParameters(Map.of(
                "sluice.redis.address", "redis://127.0.0.1:" + redisPort,
                "sluice.await-backend", "1500ms",
                "sluice.backend-timeout", "200ms",
                "sluice.on-backend-failure", "deny",
                "sluice.key-prefix", "filter-await-" + UUID.randomUUID(),
                "sluice.rules.posts.paths", "/hello",
                "sluice.rules.posts.rate", "5/1h"));
        context.addFilter(sluice, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.getWriter().write("hello");
            }
        }), "/hello");
        server.setHandler(context);
        long started = System.nanoTime();
        server.start();
        try {
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).isBetween(AWAIT, AWAIT.plusSeconds(5));
            Sluice engine = (Sluice) context.getServletContext().getAttribute(SluiceFilter.CONTEXT_ATTRIBUTE);
            assertThat(engine.connected()).isFalse();
            assertThat(given().port(connector.getLocalPort()).get("/hello").statusCode()).isEqualTo(429);

            try (RedisProcess redis = RedisProcess.start(redisPort, false, List.of())) {
                await("connected() once Redis is up").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(engine::connected);
                await("a request admitted through Redis").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(() -> given().port(connector.getLocalPort()).get("/hello").statusCode() == 200);
            }
        } finally {
            server.stop();
        }
    }
}
