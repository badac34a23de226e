package io.sluice.cdi;

import io.sluice.LimitExceededException;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real {@link SluiceFilter} and the interceptor in one web app (Weld Servlet in embedded Jetty 12), both
 * over the container's one {@link Sluice}: a rule applied by the filter to {@code /filtered} and named by a
 * {@code @Limited} method called from {@code /bean} counts both against one budget.
 */
class FilterAndInterceptorSharedCounterTest {
    private static WeldContainer container;
    private static CdiTesting.WebApp web;
    private static HttpClient http;
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        container = CdiTesting.boot(CdiTesting.rulesFile(
                "sluice.rules.shared.paths=/filtered",
                "sluice.rules.shared.key=header:X-User",
                "sluice.rules.shared.rate=4/1h"),
                Api.class);
        Sluice sluice = container.select(Sluice.class).get();
        web = CdiTesting.jetty(container, context -> {
            FilterHolder filter = new FilterHolder(new SluiceFilter(sluice));
            filter.setAsyncSupported(true);
            context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addServlet(new ServletHolder(new PlainServlet()), "/filtered");
            context.addServlet(new ServletHolder(new BeanServlet()), "/bean");
        });
        base = web.base();
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() throws Exception {
        if (web != null) web.stop();
        if (container != null) container.shutdown();
    }

    @Test
    void filterAndInterceptorShareOneCounterForTheSameRule() throws Exception {
        HttpResponse<String> f1 = get("/filtered", "dave");
        assertThat(f1.statusCode()).isEqualTo(200);
        assertThat(f1.body()).isEqualTo("ok");
        assertThat(f1.headers().firstValue("X-RateLimit-Remaining")).hasValue("3");
        HttpResponse<String> f2 = get("/filtered", "dave");
        assertThat(f2.statusCode()).isEqualTo(200);
        assertThat(f2.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");

        HttpResponse<String> b1 = get("/bean", "dave");
        assertThat(b1.statusCode()).isEqualTo(200);
        assertThat(b1.body()).isEqualTo("bean:dave");
        assertThat(get("/bean", "dave").statusCode()).isEqualTo(200);

        // 4 admitted in total across both paths: both are now rejected.
        HttpResponse<String> f3 = get("/filtered", "dave");
        assertThat(f3.statusCode()).isEqualTo(429);
        assertThat(f3.headers().firstValue("Retry-After")).hasValue("3600");
        HttpResponse<String> b3 = get("/bean", "dave");
        assertThat(b3.statusCode()).isEqualTo(429);
        assertThat(b3.body()).isEqualTo("limited:shared");

        // Another user has a budget of their own.
        assertThat(get("/filtered", "erin").statusCode()).isEqualTo(200);
        assertThat(get("/bean", "erin").statusCode()).isEqualTo(200);
    }

    private static HttpResponse<String> get(String path, String user) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        if (user != null) b.header("X-User", user);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @ApplicationScoped
    public static class Api {
        @Limited("shared")
        public String call(@LimitKey String user) {
            return "bean:" + user;
        }
    }

    /** Limited only by the filter. */
    public static class PlainServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write("ok");
        }
    }

    /** Not matched by the rule's paths: limited only by the interceptor. */
    public static class BeanServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Api api = CDI.current().select(Api.class).get();
            try {
                resp.getWriter().write(api.call(req.getHeader("X-User")));
            } catch (LimitExceededException e) {
                resp.setStatus(429);
                resp.setHeader("Retry-After", Long.toString(e.retryAfter().toSeconds()));
                resp.getWriter().write("limited:" + e.rule());
            }
        }
    }
}
