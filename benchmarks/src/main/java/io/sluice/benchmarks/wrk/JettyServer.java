package io.sluice.benchmarks.wrk;

import io.sluice.benchmarks.Hello;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;

import java.util.EnumSet;

/**
 * The embedded Jetty 12 (ee10) of the wrk benchmark, in a JVM of its own as the stock Tomcat is: every
 * {@link Scenario} as its own context on one connector on 127.0.0.1, default thread pool, each filter built by
 * Jetty from its class and init-params (Sluice from {@code sluice.*} init-params, as {@code web.xml} would give them).
 *
 * <pre>java -cp benchmarks.jar io.sluice.benchmarks.wrk.JettyServer PORT REDIS_ADDRESS [BACKEND_TIMEOUT]</pre>
 */
public final class JettyServer {
    private JettyServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String redis = args[1];
        String backendTimeout = args.length > 2 ? args[2] : null;
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ContextHandlerCollection contexts = new ContextHandlerCollection();
        for (Scenario scenario : Scenario.values()) {
            ServletContextHandler context = new ServletContextHandler(scenario.contextPath());
            context.addServlet(Hello.class, "/hello");
            if (scenario.filterClass() != null) {
                FilterHolder holder = new FilterHolder();
                holder.setClassName(scenario.filterClass());
                holder.setInitParameters(scenario.filterParameters(redis, backendTimeout));
                holder.setAsyncSupported(true);
                context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
            }
            contexts.addHandler(context);
        }
        server.setHandler(contexts);
        server.setStopAtShutdown(true);
        server.start();
        System.out.println("JettyServer listening on 127.0.0.1:" + port);
        server.join();
    }
}
