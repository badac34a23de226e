package io.sluice.cdi;

import io.sluice.LimitExceededException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The interceptor inside a servlet container: Weld (Servlet listener over an SE container) in embedded
 * Jetty 12. HTTP key kinds resolve from the current request, and a {@code @LimitKey} value reaches the
 * same counter as the same value read from a header.
 */
class ServletIntegrationTest {
    private static WeldContainer container;
    private static CdiTesting.WebApp web;
    private static HttpClient http;
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        container = CdiTesting.boot(CdiTesting.rulesFile(
                "sluice.rules.byheader.rate=2/1h",
                "sluice.rules.byheader.key=header:X-User",
                "sluice.rules.byip.rate=3/1h",
                "sluice.rules.byip.key=ip",
                "sluice.rules.byuser.rate=5/1h",
                "sluice.rules.byuser.key=user",
                "sluice.rules.byuser.on-missing-key=deny"),
                Api.class);
        web = CdiTesting.jetty(container,
                context -> context.addServlet(new ServletHolder(new ApiServlet()), "/*"));
        base = web.base();
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() throws Exception {
        if (web != null) web.stop();
        if (container != null) container.shutdown();
    }

    @Test
    void headerKeyResolvesFromTheCurrentRequest() throws Exception {
        assertThat(get("/header", "alice")).isEqualTo(200);
        assertThat(get("/header", "alice")).isEqualTo(200);
        assertThat(get("/header", "alice")).isEqualTo(429);
        assertThat(get("/header", "bob")).isEqualTo(200);
    }

    @Test
    void limitKeyAndTheSameHeaderValueShareOneCounter() throws Exception {
        Api api = container.select(Api.class).get();
        api.headerAs("carol");
        api.headerAs("carol");
        assertThatThrownBy(() -> api.headerAs("carol")).isInstanceOf(LimitExceededException.class);
        assertThat(get("/header", "carol")).isEqualTo(429);
    }

    @Test
    void ipKeyResolvesFromTheCurrentRequest() throws Exception {
        for (int i = 0; i < 3; i++) assertThat(get("/ip", null)).isEqualTo(200);
        assertThat(get("/ip", null)).isEqualTo(429);
    }

    @Test
    void anonymousRequestHasNoUser() throws Exception {
        assertThat(get("/user", null)).isEqualTo(429);
    }

    private static int get(String path, String user) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        if (user != null) b.header("X-User", user);
        return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @ApplicationScoped
    public static class Api {
        @Limited("byheader")
        public String header() {
            return "header";
        }

        @Limited("byheader")
        public String headerAs(@LimitKey String user) {
            return user;
        }

        @Limited("byip")
        public String ip() {
            return "ip";
        }

        @Limited("byuser")
        public String user() {
            return "user";
        }
    }

    public static class ApiServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Api api = CDI.current().select(Api.class).get();
            try {
                String body = switch (req.getPathInfo() == null ? req.getServletPath() : req.getPathInfo()) {
                    case "/header" -> api.header();
                    case "/ip" -> api.ip();
                    case "/user" -> api.user();
                    default -> throw new IllegalArgumentException(req.getRequestURI());
                };
                resp.getWriter().write(body);
            } catch (LimitExceededException e) {
                resp.setStatus(429);
                resp.setHeader("Retry-After", Long.toString(e.retryAfter().toSeconds()));
            }
        }
    }
}
