package io.sluice.filter;

import io.sluice.Decision;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A rejection handler that cannot be used stops the application from starting, naming why. */
class RejectionHandlerInitTest {
    private static final String EXPECTED = ": expected the name of a class implementing io.sluice.filter.RejectionHandler"
            + " with a public no-argument constructor";

    /** Not a handler. */
    public static final class NotAHandler {
    }

    /** A handler without a no-argument constructor. */
    public static final class NeedsArguments implements RejectionHandler {
        public NeedsArguments(String page) {
        }

        @Override
        public void reject(Decision rejection, HttpServletRequest request, HttpServletResponse response) {
        }
    }

    /** A handler whose constructor fails. */
    public static final class Fails implements RejectionHandler {
        public Fails() {
            throw new IllegalStateException("no template");
        }

        @Override
        public void reject(Decision rejection, HttpServletRequest request, HttpServletResponse response) {
        }
    }

    @Test
    void everyWayTheInitParamCanFailIsNamed() {
        assertFails("com.example.Missing", " (no such class)");
        assertFails(NotAHandler.class.getName(), " (it does not implement RejectionHandler)");
        assertFails(NeedsArguments.class.getName(), " (it has no public no-argument constructor)");
        assertFails(Fails.class.getName(), " (its constructor threw java.lang.IllegalStateException)");
    }

    @Test
    void aContextAttributeThatIsNoHandlerFailsInit() {
        assertThatThrownBy(() -> initOnJetty(Map.of(), "not a handler"))
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("servlet context attribute io.sluice.filter.RejectionHandler = (a java.lang.String): "
                        + "expected an instance of io.sluice.filter.RejectionHandler");
    }

    private static void assertFails(String className, String why) {
        assertThatThrownBy(() -> initOnJetty(Map.of("rejection-handler", className), null))
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("init-param rejection-handler = \"" + className + "\"" + EXPECTED + why);
    }

    private static void initOnJetty(Map<String, String> extra, Object attribute) throws Exception {
        Map<String, String> params = new HashMap<>(HttpContract.initParams("rh"));
        params.putAll(extra);
        Server server = new Server(0);
        ServletContextHandler context = new ServletContextHandler("/");
        server.setHandler(context);
        server.start();
        try {
            if (attribute != null) context.getServletContext().setAttribute(SluiceFilter.REJECTION_HANDLER_ATTRIBUTE, attribute);
            SluiceFilter filter = new SluiceFilter();
            filter.init(new FilterConfig() {
                @Override
                public String getFilterName() {
                    return "sluice";
                }

                @Override
                public ServletContext getServletContext() {
                    return context.getServletContext();
                }

                @Override
                public String getInitParameter(String name) {
                    return params.get(name);
                }

                @Override
                public Enumeration<String> getInitParameterNames() {
                    return Collections.enumeration(params.keySet());
                }
            });
            filter.destroy();
        } finally {
            server.stop();
        }
    }
}
