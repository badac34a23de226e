package io.sluice.filter;

import io.sluice.testing.TestRedis;
import jakarta.servlet.ServletException;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A bad rules file stops the application from starting, with a message naming what is wrong. */
class FilterInitTest {

    @Test
    void aBadRuleFailsInitWithEveryProblemNamed() {
        Map<String, String> params = Map.of(
                "config", "classpath:sluice-test.properties",
                "sluice.redis.address", TestRedis.address(),
                "sluice.rules.posts.rate", "ten/h",
                "sluice.rules.slow.concurrency", "-1",
                "sluice.colour", "blue");
        assertThatThrownBy(() -> initOnJetty(params))
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("sluice.rules.posts.rate = \"ten/h\": expected <permits>/<period> such as 10/1h")
                .hasMessageContaining("sluice.rules.slow.concurrency = \"-1\": expected a whole number")
                .hasMessageContaining("sluice.colour = \"blue\": expected a known property");
    }

    @Test
    void anUnknownInitParamFailsInitWithoutShowingItsValue() {
        assertThatThrownBy(() -> initOnJetty(Map.of("config", "classpath:sluice-test.properties",
                "confg", "redis://admin:s3cret@redis.internal:6379")))
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("init-param confg = (value not shown): expected config, rejection-handler or a sluice.* property")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void aMissingRulesFileFailsInit() {
        assertThatThrownBy(() -> initOnJetty(Map.of("config", "classpath:nope.properties")))
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("rules file = \"classpath:nope.properties\": expected an existing file");
    }

    @Test
    void aGoodFileStartsAndPublishesTheEngine() throws Exception {
        Server server = new Server(0);
        ServletContextHandler context = new ServletContextHandler("/");
        SluiceFilter filter = new SluiceFilter();
        var holder = new org.eclipse.jetty.ee10.servlet.FilterHolder(filter);
        holder.setInitParameters(HttpContract.initParams("init"));
        context.addFilter(holder, "/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new TestServlets.Ok()), "/");
        server.setHandler(context);
        server.start();
        try {
            assertThat(context.getServletContext().getAttribute(SluiceFilter.CONTEXT_ATTRIBUTE)).isSameAs(filter.sluice());
            assertThat(filter.sluice().rules().all()).extracting(r -> r.name()).containsExactly("dry", "m", "once", "posts", "slow", "stream", "waiting", "wstream");
        } finally {
            server.stop();
        }
    }

    /** Initialises the filter the way a container does, through a real Jetty context. */
    private static void initOnJetty(Map<String, String> params) throws Exception {
        Server server = new Server(0);
        ServletContextHandler context = new ServletContextHandler("/");
        server.setHandler(context);
        server.start();
        try {
            SluiceFilter filter = new SluiceFilter();
            filter.init(new jakarta.servlet.FilterConfig() {
                @Override
                public String getFilterName() {
                    return "sluice";
                }

                @Override
                public jakarta.servlet.ServletContext getServletContext() {
                    return context.getServletContext();
                }

                @Override
                public String getInitParameter(String name) {
                    return params.get(name);
                }

                @Override
                public java.util.Enumeration<String> getInitParameterNames() {
                    return java.util.Collections.enumeration(params.keySet());
                }
            });
            filter.destroy();
        } finally {
            server.stop();
        }
    }
}
