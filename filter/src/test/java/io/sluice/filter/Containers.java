package io.sluice.filter;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;

/** Real embedded servlet containers, each on a free loopback port, with the filter registered their own way. */
final class Containers {
    private Containers() {
    }

    interface Running extends AutoCloseable {
        int port();

        SluiceFilter filter();

        @Override
        void close();
    }

    /**
     * How a container is set up: its most threads for requests (0: the container's default) and whether the
     * filter also sees ASYNC, FORWARD, INCLUDE and ERROR dispatches or only REQUEST ones.
     */
    record Setup(int maxThreads, boolean requestDispatchesOnly) {
        static final Setup DEFAULT = new Setup(0, false);

        EnumSet<DispatcherType> dispatcherTypes() {
            return requestDispatchesOnly ? EnumSet.of(DispatcherType.REQUEST) : EnumSet.allOf(DispatcherType.class);
        }
    }

    enum Kind {
        JETTY {
            @Override
            Running start(Map<String, String> initParams, Setup setup) {
                return jetty(initParams, setup);
            }
        },
        TOMCAT {
            @Override
            Running start(Map<String, String> initParams, Setup setup) {
                return tomcat(initParams, setup);
            }
        };

        Running start(Map<String, String> initParams) {
            return start(initParams, Setup.DEFAULT);
        }

        abstract Running start(Map<String, String> initParams, Setup setup);
    }

    interface Stopper {
        void stop() throws Exception;
    }

    private static Running running(java.util.function.IntSupplier port, SluiceFilter filter, Stopper stopper) {
        return new Running() {
            @Override
            public int port() {
                return port.getAsInt();
            }

            @Override
            public SluiceFilter filter() {
                return filter;
            }

            @Override
            public void close() {
                try {
                    stopper.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    static Running jetty(Map<String, String> initParams) {
        return jetty(initParams, Setup.DEFAULT);
    }

    static Running jetty(Map<String, String> initParams, Setup setup) {
        try {
            Server server = setup.maxThreads() > 0
                    ? new Server(new org.eclipse.jetty.util.thread.QueuedThreadPool(setup.maxThreads(), 2))
                    : new Server();
            // Room for the 10 KB hostile header values the tests send (Jetty's default is 8 KB).
            org.eclipse.jetty.server.HttpConfiguration http = new org.eclipse.jetty.server.HttpConfiguration();
            http.setRequestHeaderSize(65536);
            ServerConnector connector = new ServerConnector(server, new org.eclipse.jetty.server.HttpConnectionFactory(http));
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/");
            SluiceFilter filter = new SluiceFilter();
            FilterHolder holder = new FilterHolder(filter);
            holder.setInitParameters(initParams);
            holder.setAsyncSupported(true);
            // By default every dispatcher type: the filter itself must apply once per request.
            context.addFilter(holder, "/*", setup.dispatcherTypes());
            for (Map.Entry<String, HttpServlet> e : TestServlets.all().entrySet()) {
                ServletHolder sh = new ServletHolder(e.getValue());
                sh.setAsyncSupported(true);
                context.addServlet(sh, e.getKey());
            }
            server.setHandler(context);
            server.start();
            return running(connector::getLocalPort, filter, server::stop);
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not start", e);
        }
    }

    static Running tomcat(Map<String, String> initParams) {
        return tomcat(initParams, Setup.DEFAULT);
    }

    static Running tomcat(Map<String, String> initParams, Setup setup) {
        try {
            Path base = Files.createTempDirectory("sluice-tomcat");
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            Connector connector = new Connector();
            connector.setPort(0);
            connector.setProperty("address", "127.0.0.1");
            // Room for the 10 KB hostile header values the tests send (Tomcat's default is 8 KB).
            connector.setProperty("maxHttpRequestHeaderSize", "65536");
            if (setup.maxThreads() > 0) {
                connector.setProperty("maxThreads", Integer.toString(setup.maxThreads()));
                connector.setProperty("minSpareThreads", "1");
            }
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            Context context = tomcat.addContext("", base.toString());
            SluiceFilter filter = new SluiceFilter();
            FilterDef def = new FilterDef();
            def.setFilterName("sluice");
            def.setFilter(filter);
            def.setAsyncSupported("true");
            initParams.forEach(def::addInitParameter);
            context.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("sluice");
            map.addURLPattern("/*");
            for (DispatcherType type : setup.dispatcherTypes()) map.setDispatcher(type.name());
            context.addFilterMap(map);
            int i = 0;
            for (Map.Entry<String, HttpServlet> e : TestServlets.all().entrySet()) {
                String name = "servlet" + i++;
                Tomcat.addServlet(context, name, e.getValue()).setAsyncSupported(true);
                context.addServletMappingDecoded(e.getKey(), name);
            }
            tomcat.start();
            if (!context.getState().isAvailable()) {
                tomcat.stop();
                tomcat.destroy();
                throw new IllegalStateException("Tomcat context did not start");
            }
            return running(connector::getLocalPort, filter, () -> {
                tomcat.stop();
                tomcat.destroy();
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (org.apache.catalina.LifecycleException e) {
            throw new IllegalStateException("Tomcat did not start", e);
        }
    }
}
