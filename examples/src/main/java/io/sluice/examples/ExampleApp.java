package io.sluice.examples;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.filter.SluiceFilter;
import io.sluice.rule.ConfigLoader;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import redis.embedded.RedisServer;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The Sluice filter on an embedded Jetty 12 (ee10), with three limited endpoints:
 * <ul>
 *   <li>{@code POST /api/posts}: rule {@code posts}, a token bucket of 10 posts per user per hour, at most 5 in a
 *       row (a demo login: the {@code X-User} header names the user; a post without it is rejected);</li>
 *   <li>{@code GET /api/search}: rule {@code search}, 10 searches a minute per client address, soft: up to 20%
 *       over (12) is let through;</li>
 *   <li>{@code POST /api/images}: rule {@code images}, at most 3 image generations in flight for everyone.
 *       The servlet is asynchronous, so a waiting generation holds a permit but no thread.</li>
 * </ul>
 * {@code GET /metrics} serves Sluice's meters in Prometheus text format: the filter finds the app's
 * {@link PrometheusMeterRegistry} in the servlet context attribute {@link SluiceFilter#METER_REGISTRY_ATTRIBUTE}.
 * The rules are in {@code sluice-example.properties}, unless {@code -Dsluice.config} or {@code SLUICE_CONFIG} names
 * another rules file. Redis is {@code REDIS_URL} when set, otherwise an
 * embedded Redis on a free port; the HTTP port is {@code PORT} (default 8080).
 */
public final class ExampleApp {
    /** How long a demo image takes to "generate". */
    public static final Duration DEFAULT_IMAGE_DELAY = Duration.ofSeconds(5);
    static final String RULES = "classpath:sluice-example.properties";

    private ExampleApp() {
    }

    public static void main(String[] args) throws Exception {
        String portEnv = System.getenv("PORT");
        int port = portEnv == null || portEnv.isBlank() ? 8080 : Integer.parseInt(portEnv.trim());
        String redisUrl = System.getenv("REDIS_URL");
        Running app = start(port, redisUrl == null || redisUrl.isBlank() ? null : redisUrl.trim());
        Runtime.getRuntime().addShutdownHook(new Thread(app::close, "sluice-example-shutdown"));
        System.out.println(banner(app));
        app.join();
    }

    /** Starts the app on {@code port} (0 for any free port); a null Redis address starts an embedded Redis. */
    public static Running start(int port, String redisAddressOrNull) throws Exception {
        return start(port, redisAddressOrNull, DEFAULT_IMAGE_DELAY);
    }

    /** As {@link #start(int, String)}, with the time a demo image takes to generate. */
    public static Running start(int port, String redisAddressOrNull, Duration imageDelay) throws Exception {
        return start(port, redisAddressOrNull, imageDelay, Map.of());
    }

    /** As {@link #start(int, String, Duration)}, with {@code sluice.*} settings over the rules file (filter init-params). */
    public static Running start(int port, String redisAddressOrNull, Duration imageDelay, Map<String, String> settings)
            throws Exception {
        RedisServer redis = null;
        String address = redisAddressOrNull;
        ScheduledExecutorService scheduler = null;
        Server server = null;
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try {
            if (address == null) {
                redis = EmbeddedRedis.start();
                address = EmbeddedRedis.address(redis);
            }
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "image-generator");
                t.setDaemon(true);
                return t;
            });

            server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setPort(port);
            server.addConnector(connector);

            ServletContextHandler context = new ServletContextHandler();
            context.setContextPath("/");
            // Set before the filter's init, which is where it looks for the registry.
            context.setAttribute(SluiceFilter.METER_REGISTRY_ATTRIBUTE, meters);
            // The filter reads classpath:sluice-example.properties through the context's class loader.
            context.setClassLoader(ExampleApp.class.getClassLoader());

            FilterHolder sluice = new FilterHolder(SluiceFilter.class);
            sluice.setName("sluice");
            sluice.setInitParameter("config", rulesLocation(System::getProperty, System::getenv));
            settings.forEach(sluice::setInitParameter);
            sluice.setInitParameter("sluice.redis.address", address);
            sluice.setAsyncSupported(true);
            context.addFilter(sluice, "/*", EnumSet.of(DispatcherType.REQUEST));

            context.addServlet(new ServletHolder("posts", new PostsServlet()), "/api/posts");
            context.addServlet(new ServletHolder("search", new SearchServlet()), "/api/search");
            ServletHolder images = new ServletHolder("images", new ImagesServlet(scheduler, imageDelay));
            images.setAsyncSupported(true);
            context.addServlet(images, "/api/images");
            context.addServlet(new ServletHolder("metrics", new MetricsServlet(meters)), "/metrics");
            context.addServlet(new ServletHolder("home", new HomeServlet()), "/");

            server.setHandler(context);
            server.start();
            if (!context.isAvailable()) {
                throw new IllegalStateException("The example context did not start; see the log above");
            }
            return new Running(server, connector.getLocalPort(), address, redis, scheduler, imageDelay, meters);
        } catch (Exception | Error e) {
            stopQuietly(server, scheduler, redis);
            meters.close();
            throw e;
        }
    }

    /**
     * Your own rules file when you name one ({@code -Dsluice.config=...}, else {@code SLUICE_CONFIG}), else the
     * example's: the filter's init-param would otherwise win over both.
     */
    static String rulesLocation(Function<String, String> systemProperties, Function<String, String> environment) {
        for (String location : new String[]{systemProperties.apply(ConfigLoader.SYSTEM_PROPERTY),
                environment.apply(ConfigLoader.ENVIRONMENT_VARIABLE)}) {
            if (location != null && !location.isBlank()) return location.trim();
        }
        return RULES;
    }

    static String banner(Running app) {
        String base = "http://localhost:" + app.port();
        String redis = app.embeddedRedisPort() > 0
                ? "embedded Redis on port " + app.embeddedRedisPort() + " (set REDIS_URL to use your own)"
                : "REDIS_URL " + app.redisAddress();
        return String.join(System.lineSeparator(),
                "",
                "Sluice example running on " + base + "/",
                "Redis: " + redis,
                "",
                "Try (posts: 10 per hour per X-User, 5 in a row; search: 10 a minute, 12 let through; images: 3 in"
                        + " flight for everyone, each takes " + HomeServlet.seconds(app.imageDelay()) + "):",
                "  curl -i " + base + "/",
                "  for i in $(seq 1 6); do curl -s -o /dev/null -w '%{http_code}\\n' -X POST -H 'X-User: alice' "
                        + base + "/api/posts; done",
                "  for i in $(seq 1 13); do curl -s -o /dev/null -w '%{http_code}\\n' '" + base
                        + "/api/search?q=sluice'; done",
                "  curl -si -X POST -H 'X-User: alice' " + base + "/api/posts",
                "  curl -si -X POST " + base + "/api/posts",
                "  for i in $(seq 1 5); do curl -s -o /dev/null -w '%{http_code}\\n' -X POST " + base
                        + "/api/images & done; wait",
                "  curl -s " + base + "/metrics | grep sluice_",
                "",
                "Stop with Ctrl-C.",
                "");
    }

    private static void stopQuietly(Server server, ScheduledExecutorService scheduler, RedisServer redis) {
        if (server != null) {
            try {
                server.stop();
            } catch (Exception e) {
                System.err.println("Could not stop Jetty: " + e);
            }
        }
        if (scheduler != null) {
            scheduler.shutdownNow();
            try {
                scheduler.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        EmbeddedRedis.stopQuietly(redis);
    }

    /** A started app: Jetty, the image scheduler and, when it started one, the embedded Redis. */
    public static final class Running implements AutoCloseable {
        private final Server server;
        private final int port;
        private final String redisAddress;
        private final RedisServer redis;
        private final ScheduledExecutorService scheduler;
        private final Duration imageDelay;
        private final PrometheusMeterRegistry meters;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Running(Server server, int port, String redisAddress, RedisServer redis,
                        ScheduledExecutorService scheduler, Duration imageDelay, PrometheusMeterRegistry meters) {
            this.server = server;
            this.port = port;
            this.redisAddress = redisAddress;
            this.redis = redis;
            this.scheduler = scheduler;
            this.imageDelay = imageDelay;
            this.meters = meters;
        }

        /** The HTTP port the app listens on. */
        public int port() {
            return port;
        }

        /** The Redis the limits are kept in, such as {@code redis://127.0.0.1:6379}. */
        public String redisAddress() {
            return redisAddress;
        }

        /** The port of the embedded Redis, or -1 when the app uses REDIS_URL. */
        public int embeddedRedisPort() {
            return redis == null ? -1 : redis.ports().get(0);
        }

        /** How long a demo image takes to generate. */
        public Duration imageDelay() {
            return imageDelay;
        }

        /** Blocks until Jetty stops. */
        public void join() throws InterruptedException {
            server.join();
        }

        /** Stops Jetty (which closes the filter and its Redis connections), then the embedded Redis. Idempotent. */
        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                stopQuietly(server, scheduler, redis);
                meters.close();
            }
        }
    }
}
