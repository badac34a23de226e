package io.sluice.filter;

import io.undertow.Handlers;
import io.undertow.UndertowOptions;
import io.undertow.Undertow;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;
import io.undertow.servlet.api.FilterInfo;
import io.undertow.servlet.api.ServletInfo;
import io.undertow.servlet.util.ImmediateInstanceFactory;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/** Real embedded servlet containers, each on a free loopback port, with the filter registered their own way. */
final class Containers {
    /** Room for the 10 KB hostile header values the tests send (the containers' default is 8 KB). */
    private static final int MAX_HEADER_BYTES = 65536;
    private static final String SLUICE = "sluice";

    private Containers() {
    }

    interface Running extends AutoCloseable {
        int port();

        SluiceFilter filter();

        @Override
        void close();
    }

    /** A filter of the application, mapped on {@code /*} after Sluice for REQUEST dispatches only (the default). */
    record AppFilter(String name, Filter filter, Map<String, String> initParams) {
        AppFilter(String name, Filter filter) {
            this(name, filter, Map.of());
        }
    }

    /**
     * How a container is set up: its most threads for requests (0: the container's default), whether Sluice
     * also sees ASYNC, FORWARD, INCLUDE and ERROR dispatches or only REQUEST ones, and the application's own
     * filters after it and before it.
     */
    record Setup(int maxThreads, boolean requestDispatchesOnly, List<AppFilter> after, List<AppFilter> before) {
        static final Setup DEFAULT = new Setup(0, false);

        Setup(int maxThreads, boolean requestDispatchesOnly) {
            this(maxThreads, requestDispatchesOnly, List.of());
        }

        Setup(int maxThreads, boolean requestDispatchesOnly, List<AppFilter> after) {
            this(maxThreads, requestDispatchesOnly, after, List.of());
        }

        /** The default setup with the application's filters before Sluice (one that sets a plan attribute, say). */
        static Setup before(AppFilter... before) {
            return new Setup(0, false, List.of(), List.of(before));
        }

        EnumSet<DispatcherType> dispatcherTypes() {
            return requestDispatchesOnly ? EnumSet.of(DispatcherType.REQUEST) : EnumSet.allOf(DispatcherType.class);
        }

        /** The application's filters before Sluice, Sluice, then the application's filters after it, in order. */
        List<AppFilter> chain(SluiceFilter sluice, Map<String, String> initParams) {
            List<AppFilter> all = new ArrayList<>(before);
            all.add(new AppFilter(SLUICE, sluice, initParams));
            all.addAll(after);
            return all;
        }

        EnumSet<DispatcherType> dispatcherTypes(AppFilter f) {
            return f.name().equals(SLUICE) ? dispatcherTypes() : EnumSet.of(DispatcherType.REQUEST);
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
        },
        UNDERTOW {
            @Override
            Running start(Map<String, String> initParams, Setup setup) {
                return undertow(initParams, setup);
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

    private static Running running(IntSupplier port, SluiceFilter filter, Stopper stopper) {
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
        return jetty(initParams, setup, 0);
    }

    /** On {@code port} (0: a free one), so that a test can knock on the port while the container starts. */
    static Running jetty(Map<String, String> initParams, Setup setup, int port) {
        return jetty(new SluiceFilter(), initParams, setup, port);
    }

    /** A Jetty whose filter is {@code sluice} (built around an engine of the test's own). */
    static Running jetty(SluiceFilter sluice) {
        return jetty(sluice, Map.of(), Setup.DEFAULT, 0);
    }

    private static Running jetty(SluiceFilter sluice, Map<String, String> initParams, Setup setup, int port) {
        try {
            Server server = setup.maxThreads() > 0 ? new Server(new QueuedThreadPool(setup.maxThreads(), 2)) : new Server();
            HttpConfiguration http = new HttpConfiguration();
            http.setRequestHeaderSize(MAX_HEADER_BYTES);
            ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
            connector.setHost("127.0.0.1");
            connector.setPort(port);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/");
            for (AppFilter f : setup.chain(sluice, initParams)) {
                FilterHolder holder = new FilterHolder(f.filter());
                holder.setName(f.name());
                holder.setInitParameters(f.initParams());
                holder.setAsyncSupported(true);
                context.addFilter(holder, "/*", setup.dispatcherTypes(f));
            }
            for (Map.Entry<String, HttpServlet> e : TestServlets.all().entrySet()) {
                ServletHolder sh = new ServletHolder(e.getValue());
                sh.setAsyncSupported(true);
                context.addServlet(sh, e.getKey());
            }
            server.setHandler(context);
            server.start();
            return running(connector::getLocalPort, sluice, server::stop);
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not start", e);
        }
    }

    static Running tomcat(Map<String, String> initParams) {
        return tomcat(initParams, Setup.DEFAULT);
    }

    static Running tomcat(Map<String, String> initParams, Setup setup) {
        return tomcat(initParams, setup, 0);
    }

    /** On {@code port} (0: a free one), so that a test can knock on the port while the container starts. */
    static Running tomcat(Map<String, String> initParams, Setup setup, int port) {
        return tomcat(new SluiceFilter(), initParams, setup, port);
    }

    /** A Tomcat whose filter is {@code sluice} (built around an engine of the test's own). */
    static Running tomcat(SluiceFilter sluice) {
        return tomcat(sluice, Map.of(), Setup.DEFAULT, 0);
    }

    private static Running tomcat(SluiceFilter sluice, Map<String, String> initParams, Setup setup, int port) {
        try {
            Path base = Files.createTempDirectory("sluice-tomcat");
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            Connector connector = new Connector();
            connector.setPort(port);
            connector.setProperty("address", "127.0.0.1");
            connector.setProperty("maxHttpRequestHeaderSize", Integer.toString(MAX_HEADER_BYTES));
            if (setup.maxThreads() > 0) {
                connector.setProperty("maxThreads", Integer.toString(setup.maxThreads()));
                connector.setProperty("minSpareThreads", "1");
            }
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            Context context = tomcat.addContext("", base.toString());
            for (AppFilter f : setup.chain(sluice, initParams)) {
                FilterDef def = new FilterDef();
                def.setFilterName(f.name());
                def.setFilter(f.filter());
                def.setAsyncSupported("true");
                f.initParams().forEach(def::addInitParameter);
                context.addFilterDef(def);
                FilterMap map = new FilterMap();
                map.setFilterName(f.name());
                map.addURLPattern("/*");
                for (DispatcherType type : setup.dispatcherTypes(f)) map.setDispatcher(type.name());
                context.addFilterMap(map);
            }
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
            return running(connector::getLocalPort, sluice, () -> {
                tomcat.stop();
                tomcat.destroy();
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (LifecycleException e) {
            throw new IllegalStateException("Tomcat did not start", e);
        }
    }

    static Running undertow(Map<String, String> initParams, Setup setup) {
        try {
            DeploymentInfo info = Servlets.deployment().setClassLoader(Containers.class.getClassLoader())
                    .setContextPath("/").setDeploymentName("sluice-test.war");
            SluiceFilter sluice = new SluiceFilter();
            for (AppFilter f : setup.chain(sluice, initParams)) {
                FilterInfo filter = Servlets.filter(f.name(), f.filter().getClass(), new ImmediateInstanceFactory<>(f.filter()))
                        .setAsyncSupported(true);
                f.initParams().forEach(filter::addInitParam);
                info.addFilter(filter);
                for (DispatcherType type : setup.dispatcherTypes(f)) info.addFilterUrlMapping(f.name(), "/*", type);
            }
            int i = 0;
            for (Map.Entry<String, HttpServlet> e : TestServlets.all().entrySet()) {
                ServletInfo servlet = Servlets.servlet("servlet" + i++, e.getValue().getClass(),
                        new ImmediateInstanceFactory<>(e.getValue())).addMapping(e.getKey()).setAsyncSupported(true);
                info.addServlet(servlet);
            }
            DeploymentManager manager = Servlets.defaultContainer().addDeployment(info);
            manager.deploy();
            Undertow.Builder builder = Undertow.builder().addHttpListener(0, "127.0.0.1")
                    .setServerOption(UndertowOptions.MAX_HEADER_SIZE, MAX_HEADER_BYTES)
                    .setHandler(Handlers.path().addPrefixPath("/", manager.start()));
            if (setup.maxThreads() > 0) builder.setWorkerThreads(setup.maxThreads());
            Undertow server = builder.build();
            server.start();
            int port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
            return running(() -> port, sluice, () -> {
                server.stop();
                manager.stop();
                manager.undeploy();
            });
        } catch (ServletException e) {
            throw new IllegalStateException("Undertow did not start", e);
        }
    }
}
