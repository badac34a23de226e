package io.sluice.benchmarks;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The baseline: the rate-limit filter one writes in a few minutes with Redisson's {@link RRateLimiter}. */
final class NaiveRateLimitFilter implements Filter {
    private final RedissonClient redisson;
    private final long permits;
    private final Duration period;
    private final Set<String> configured = ConcurrentHashMap.newKeySet();

    NaiveRateLimitFilter(RedissonClient redisson, long permits, Duration period) {
        this.redisson = redisson;
        this.permits = permits;
        this.period = period;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        String user = ((HttpServletRequest) req).getHeader("X-User");
        if (user == null) {
            chain.doFilter(req, res);
            return;
        }
        RRateLimiter limiter = redisson.getRateLimiter("naive:" + user);
        if (configured.add(user)) limiter.trySetRate(RateType.OVERALL, permits, period);
        boolean allowed = limiter.tryAcquire();
        long remaining = limiter.availablePermits();
        HttpServletResponse response = (HttpServletResponse) res;
        response.setHeader("X-RateLimit-Limit", Long.toString(permits));
        response.setHeader("X-RateLimit-Remaining", Long.toString(remaining));
        if (allowed) {
            chain.doFilter(req, res);
        } else {
            response.setStatus(429);
            response.setHeader("Retry-After", Long.toString(period.toSeconds()));
            response.setContentLength(0);
        }
    }
}
