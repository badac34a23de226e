package io.sluice.benchmarks;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The baselines: the rate-limit filter one writes in a few minutes with Redisson's {@link RRateLimiter}:
 * {@code tryAcquire} then {@code availablePermits} for the headers, two blocking round trips per request; or, with
 * the init-param {@link #HEADERS} {@code false}, the simplest one: {@code tryAcquire} alone, one round trip, no
 * headers.
 *
 * <p>Constructed around a client (the embedded benchmarks), or by a container from {@code web.xml} with the
 * init-params {@link #REDIS_ADDRESS}, {@link #HEADER}, {@link #PERMITS} and {@link #PERIOD_SECONDS}; then it
 * creates its own Redisson client with Redisson's defaults and shuts it down in {@code destroy}. Thread-safe.
 */
public final class NaiveRateLimitFilter implements Filter {
    public static final String REDIS_ADDRESS = "redis-address";
    public static final String HEADER = "header";
    public static final String PERMITS = "permits";
    public static final String PERIOD_SECONDS = "period-seconds";
    /** {@code true} (default): the rate-limit headers, read by a second round trip; {@code false}: none. */
    public static final String HEADERS = "headers";

    private RedissonClient redisson;
    private boolean ownsClient;
    private String header;
    private long permits;
    private Duration period;
    private boolean headers = true;
    private final Set<String> configured = ConcurrentHashMap.newKeySet();

    /** For containers; {@link #init} reads the init-params. */
    public NaiveRateLimitFilter() {
    }

    NaiveRateLimitFilter(RedissonClient redisson, String header, long permits, Duration period) {
        this.redisson = redisson;
        this.header = header;
        this.permits = permits;
        this.period = period;
    }

    @Override
    public void init(FilterConfig config) throws ServletException {
        if (redisson != null) return;
        Config client = new Config();
        client.useSingleServer().setAddress(required(config, REDIS_ADDRESS));
        header = required(config, HEADER);
        permits = Long.parseLong(required(config, PERMITS));
        period = Duration.ofSeconds(Long.parseLong(required(config, PERIOD_SECONDS)));
        headers = !"false".equals(config.getInitParameter(HEADERS));
        redisson = Redisson.create(client);
        ownsClient = true;
    }

    private static String required(FilterConfig config, String name) throws ServletException {
        String value = config.getInitParameter(name);
        if (value == null || value.isBlank()) throw new ServletException("init-param " + name + " is required");
        return value.trim();
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        String user = ((HttpServletRequest) req).getHeader(header);
        if (user == null) {
            chain.doFilter(req, res);
            return;
        }
        RRateLimiter limiter = redisson.getRateLimiter("naive:" + user);
        if (configured.add(user)) limiter.trySetRate(RateType.OVERALL, permits, period);
        boolean allowed = limiter.tryAcquire();
        HttpServletResponse response = (HttpServletResponse) res;
        if (headers) {
            long remaining = limiter.availablePermits();
            response.setHeader("X-RateLimit-Limit", Long.toString(permits));
            response.setHeader("X-RateLimit-Remaining", Long.toString(remaining));
        }
        if (allowed) {
            chain.doFilter(req, res);
        } else {
            response.setStatus(429);
            if (headers) response.setHeader("Retry-After", Long.toString(period.toSeconds()));
            response.setContentLength(0);
        }
    }

    @Override
    public void destroy() {
        if (ownsClient) redisson.shutdown();
    }
}
