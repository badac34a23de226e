package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.rule.ConfigLoader;
import io.sluice.testing.TestRedis;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.environment.servlet.Listener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.function.Consumer;

/** Boots Weld SE on a rules file written for the test, on the test Redis and a key prefix of its own. */
final class CdiTesting {
    private CdiTesting() {
    }

    /** A rules file with the test Redis, a fresh key prefix and the given lines. */
    static Path rulesFile(String... lines) {
        StringBuilder sb = new StringBuilder()
                .append("sluice.redis.address=").append(TestRedis.address()).append('\n')
                .append("sluice.key-prefix=sluice-cdi-test-").append(UUID.randomUUID()).append('\n')
                // Exact counts: a cold first connection on a loaded machine must not fail a decision open (the
                // 100 ms default deadline is the failure suites' subject, not these tests').
                .append("sluice.backend-timeout=5s\n");
        for (String line : lines) sb.append(line).append('\n');
        try {
            Path file = Files.createTempFile("sluice-cdi-test", ".properties");
            file.toFile().deleteOnExit();
            Files.writeString(file, sb, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a container of the bean classes (without discovery, Weld SE does not read META-INF/services, so the extension is added here) with
     * {@code sluice.config} naming the rules file, and builds the shared Sluice before the property is cleared.
     */
    static WeldContainer boot(Path rules, Class<?>... beans) {
        System.setProperty(ConfigLoader.SYSTEM_PROPERTY, rules.toString());
        try {
            WeldContainer container = weld(beans).initialize();
            container.select(Sluice.class).get().rules();
            return container;
        } finally {
            System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
        }
    }

    static Weld weld(Class<?>... beans) {
        return new Weld("sluice-cdi-" + UUID.randomUUID()).disableDiscovery().addBeanClasses(beans)
                .addExtension(new SluiceExtension());
    }

    /** Embedded Jetty 12 on a free loopback port, with Weld Servlet over the container. */
    record WebApp(Server server, String base) {
        void stop() throws Exception {
            server.stop();
        }
    }

    /** Starts a web app whose CDI is {@code container}; {@code setup} adds its filters and servlets. */
    static WebApp jetty(WeldContainer container, Consumer<ServletContextHandler> setup)
            throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.addEventListener(Listener.using(container.getBeanManager()));
        setup.accept(context);
        server.setHandler(context);
        server.start();
        return new WebApp(server, "http://127.0.0.1:" + connector.getLocalPort());
    }
}
