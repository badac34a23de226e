package io.sluice.examples.cdi;

import io.sluice.Sluice;
import io.sluice.cdi.SluiceExtension;
import io.sluice.examples.EmbeddedRedis;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Singleton;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.environment.servlet.Listener;
import redis.embedded.RedisServer;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Sluice CDI interceptor in a web app: Weld (SE container, Weld Servlet listener) in an embedded Jetty 12
 * (ee10). {@code POST /api/images} calls {@link ImageService#generate}, which {@code @Limited} protects with
 * two rules of {@code sluice-cdi-example.properties}: {@code images} (3 in flight for everyone) and
 * {@code image-quota} (5 an hour per {@code X-User}). A rejection surfaces as
 * {@link io.sluice.LimitExceededException}, which {@link ImagesServlet} turns into a 429.
 *
 * <p>Redis is {@code REDIS_URL} when set, otherwise an embedded Redis on a free port; the HTTP port is
 * {@code PORT} (default 8080); {@code IMAGE_DELAY_SECONDS} is how long an image takes (default 5).
 */
public final class CdiExampleApp {
    /** How long a demo image takes to "generate". */
    public static final Duration DEFAULT_IMAGE_DELAY = Duration.ofSeconds(5);

    private CdiExampleApp() {
    }

    /** What the beans need from the app that starts them; a synthetic {@code @Singleton} bean. */
    /**
     * @param imageDelay   how long a demo image takes
     * @param redisAddress the Redis the engine uses
     * @param overrides    {@code sluice.*} settings over the rules file
     */
    public record Settings(Duration imageDelay, String redisAddress, Map<String, String> overrides) {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(env("PORT", "8080"));
        String redisUrl = env("REDIS_URL", null);
        Duration delay = Duration.ofSeconds(Long.parseLong(env("IMAGE_DELAY_SECONDS", "5")));
        Running app = start(port, redisUrl, delay);
        Runtime.getRuntime().addShutdownHook(new Thread(app::close, "sluice-cdi-example-shutdown"));
        System.out.println(banner(app));
        app.join();
    }

    /** Starts the app on {@code port} (0 for any free port); a null Redis address starts an embedded Redis. */
    public static Running start(int port, String redisAddressOrNull, Duration imageDelay) throws Exception {
        return start(port, redisAddressOrNull, imageDelay, Map.of());
    }

    /** As {@link #start(int, String, Duration)}, with {@code sluice.*} settings over the rules file. */
    public static Running start(int port, String redisAddressOrNull, Duration imageDelay, Map<String, String> overrides)
            throws Exception {
        RedisServer redis = null;
        WeldContainer weld = null;
        Server server = null;
        try {
            String address = redisAddressOrNull;
            if (address == null) {
                redis = EmbeddedRedis.start();
                address = EmbeddedRedis.address(redis);
            }
            Settings settings = new Settings(imageDelay, address, overrides);

            // Weld SE without classpath scanning: the beans are listed, and so is Sluice's extension (which
            // registers the @Limited interceptor and checks at start-up that every named rule exists).
            weld = new Weld("sluice-cdi-example-" + UUID.randomUUID())
                    .disableDiscovery()
                    .property(Weld.SHUTDOWN_HOOK_SYSTEM_PROPERTY, false)
                    .addBeanClasses(ImageService.class, ExampleSluice.class)
                    .addExtension(new SluiceExtension())
                    .addExtension(new SettingsBean(settings))
                    .initialize();
            // Connect to Redis now rather than on the first request.
            weld.select(Sluice.class).get().rules();

            server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setPort(port);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/");
            // Weld Servlet over the SE container: request context and the HttpServletRequest bean per request.
            context.addEventListener(Listener.using(weld.getBeanManager()));
            context.addServlet(new ServletHolder("images", new ImagesServlet(weld.select(ImageService.class).get())),
                    "/api/images");
            server.setHandler(context);
            server.start();
            if (!context.isAvailable()) {
                throw new IllegalStateException("The CDI example context did not start; see the log above");
            }
            return new Running(server, connector.getLocalPort(), settings, weld, redis);
        } catch (Exception | Error e) {
            stopQuietly(server, weld, redis);
            throw e;
        }
    }

    static String banner(Running app) {
        String base = "http://localhost:" + app.port();
        String redis = app.embeddedRedisPort() > 0
                ? "embedded Redis on port " + app.embeddedRedisPort() + " (set REDIS_URL to use your own)"
                : "REDIS_URL " + app.settings().redisAddress();
        return String.join(System.lineSeparator(),
                "",
                "Sluice CDI example running on " + base + "/api/images",
                "Redis: " + redis,
                "",
                "Try (images: 3 in flight for everyone, 5 per hour per X-User; each takes "
                        + app.settings().imageDelay().toSeconds() + " s):",
                "  for u in a b c d e; do curl -s -w ' %{http_code}\\n' -X POST -H \"X-User: $u\" " + base
                        + "/api/images & done; wait",
                "  for i in $(seq 1 6); do curl -s -w ' %{http_code}\\n' -X POST -H 'X-User: alice' " + base
                        + "/api/images; done",
                "",
                "Stop with Ctrl-C.",
                "");
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    private static void stopQuietly(Server server, WeldContainer weld, RedisServer redis) {
        if (server != null) {
            try {
                server.stop();
            } catch (Exception e) {
                System.err.println("Could not stop Jetty: " + e);
            }
        }
        if (weld != null && weld.isRunning()) {
            try {
                weld.shutdown(); // closes the Sluice and its Redis connections
            } catch (RuntimeException e) {
                System.err.println("Could not stop Weld: " + e);
            }
        }
        EmbeddedRedis.stopQuietly(redis);
    }

    /** Adds {@link Settings} as a bean. */
    static final class SettingsBean implements Extension {
        private final Settings settings;

        SettingsBean(Settings settings) {
            this.settings = settings;
        }

        void add(@Observes AfterBeanDiscovery abd) {
            abd.addBean().types(Settings.class, Object.class).scope(Singleton.class).createWith(c -> settings);
        }
    }

    /** A started app: Jetty, the Weld container and, when it started one, the embedded Redis. */
    public static final class Running implements AutoCloseable {
        private final Server server;
        private final int port;
        private final Settings settings;
        private final WeldContainer weld;
        private final RedisServer redis;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Running(Server server, int port, Settings settings, WeldContainer weld, RedisServer redis) {
            this.server = server;
            this.port = port;
            this.settings = settings;
            this.weld = weld;
            this.redis = redis;
        }

        /** The HTTP port the app listens on. */
        public int port() {
            return port;
        }

        /** The image delay and the Redis the limits are kept in. */
        public Settings settings() {
            return settings;
        }

        /** The port of the embedded Redis, or -1 when the app uses REDIS_URL. */
        public int embeddedRedisPort() {
            return redis == null ? -1 : redis.ports().get(0);
        }

        /** Blocks until Jetty stops. */
        public void join() throws InterruptedException {
            server.join();
        }

        /** Stops Jetty, then Weld (which closes the Sluice), then the embedded Redis. Idempotent. */
        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) stopQuietly(server, weld, redis);
        }
    }
}
