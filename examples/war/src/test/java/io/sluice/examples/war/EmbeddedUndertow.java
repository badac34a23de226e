package io.sluice.examples.war;

import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;
import io.undertow.servlet.api.FilterInfo;
import io.undertow.servlet.api.ServletInfo;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EventListener;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * Embedded Undertow deploying the exploded example WAR: its {@code WEB-INF/classes} and {@code WEB-INF/lib} in
 * a class loader of their own (only {@code jakarta.servlet} comes from the container), and its {@code web.xml}
 * turned into a {@link DeploymentInfo}, as a server built on Undertow would.
 */
final class EmbeddedUndertow {
    private EmbeddedUndertow() {
    }

    private static final AtomicInteger DEPLOYMENTS = new AtomicInteger();

    /** Deploys at {@link StockContainers#CONTEXT}; {@code settings} become system properties until close. */
    static Deployed deploy(Path explodedWar, Map<String, String> settings) {
        return deploy(explodedWar, settings, UnaryOperator.identity());
    }

    /** As {@link #deploy(Path, Map)}, with the descriptor changed by {@code edit} first. */
    static Deployed deploy(Path explodedWar, Map<String, String> settings, UnaryOperator<WebXml> edit) {
        Map<String, String> previous = new HashMap<>();
        settings.forEach((k, v) -> previous.put(k, System.setProperty(k, v)));
        URLClassLoader webapp = webappClassLoader(explodedWar);
        try {
            DeploymentInfo info = deploymentInfo(edit.apply(WebXml.read(explodedWar.resolve("WEB-INF/web.xml"))), webapp);
            DeploymentManager manager = Servlets.defaultContainer().addDeployment(info);
            manager.deploy();
            Undertow server = Undertow.builder().addHttpListener(0, "127.0.0.1")
                    .setHandler(Handlers.path().addPrefixPath(StockContainers.CONTEXT, manager.start())).build();
            server.start();
            int port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
            String baseUrl = "http://127.0.0.1:" + port + StockContainers.CONTEXT;
            return new Deployed() {
                @Override
                public String baseUrl() {
                    return baseUrl;
                }

                @Override
                public String logs() {
                    return "(Undertow runs in the test JVM: its output is the test's)";
                }

                @Override
                public void close() {
                    try {
                        server.stop();
                        manager.stop();
                        manager.undeploy();
                        Servlets.defaultContainer().removeDeployment(info);
                    } catch (jakarta.servlet.ServletException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        closeQuietly(webapp);
                        restore(previous);
                    }
                }
            };
        } catch (jakarta.servlet.ServletException | ClassNotFoundException | RuntimeException e) {
            closeQuietly(webapp);
            restore(previous);
            throw new IllegalStateException("Undertow could not deploy " + explodedWar, e);
        }
    }

    static DeploymentInfo deploymentInfo(WebXml xml, ClassLoader webapp) throws ClassNotFoundException {
        DeploymentInfo info = Servlets.deployment().setClassLoader(webapp).setContextPath(StockContainers.CONTEXT)
                .setDeploymentName("example-" + DEPLOYMENTS.incrementAndGet() + ".war");
        for (String listener : xml.listeners()) {
            info.addListener(Servlets.listener(webapp.loadClass(listener).asSubclass(EventListener.class)));
        }
        for (WebXml.Component f : xml.filters()) {
            FilterInfo filter = Servlets.filter(f.name(), webapp.loadClass(f.className()).asSubclass(Filter.class))
                    .setAsyncSupported(f.asyncSupported());
            f.initParams().forEach(filter::addInitParam);
            info.addFilter(filter);
        }
        for (WebXml.Mapping m : xml.filterMappings()) {
            List<String> dispatchers = m.dispatchers().isEmpty() ? List.of("REQUEST") : m.dispatchers();
            for (String pattern : m.urlPatterns()) {
                for (String d : dispatchers) info.addFilterUrlMapping(m.name(), pattern, DispatcherType.valueOf(d));
            }
        }
        for (WebXml.Component s : xml.servlets()) {
            ServletInfo servlet = Servlets.servlet(s.name(), webapp.loadClass(s.className()).asSubclass(Servlet.class))
                    .setAsyncSupported(s.asyncSupported());
            s.initParams().forEach(servlet::addInitParam);
            for (WebXml.Mapping m : xml.servletMappings()) {
                if (m.name().equals(s.name())) m.urlPatterns().forEach(servlet::addMapping);
            }
            info.addServlet(servlet);
        }
        return info;
    }

    /** The WAR's own classes and jars; the Servlet API from the container, as in any servlet container. */
    private static URLClassLoader webappClassLoader(Path explodedWar) {
        List<URL> urls = new ArrayList<>();
        try (Stream<Path> jars = Files.list(explodedWar.resolve("WEB-INF/lib"))) {
            urls.add(explodedWar.resolve("WEB-INF/classes").toUri().toURL());
            for (Path jar : (Iterable<Path>) jars.sorted()::iterator) urls.add(jar.toUri().toURL());
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ClassLoader container = EmbeddedUndertow.class.getClassLoader();
        ClassLoader servletApiOnly = new ClassLoader("servlet-api", ClassLoader.getPlatformClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (name.startsWith("jakarta.servlet.")) return container.loadClass(name);
                throw new ClassNotFoundException(name);
            }
        };
        return new URLClassLoader("example.war", urls.toArray(URL[]::new), servletApiOnly);
    }

    private static void closeQuietly(URLClassLoader loader) {
        try {
            loader.close();
        } catch (IOException ignored) {
            // only open jar files to release
        }
    }

    private static void restore(Map<String, String> previous) {
        previous.forEach((k, v) -> {
            if (v == null) System.clearProperty(k);
            else System.setProperty(k, v);
        });
    }
}
