package io.sluice.benchmarks;

import io.sluice.Sluice;
import io.sluice.filter.SluiceFilter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Sluice's own work per request, without the network: {@link SluiceFilter#doFilter} over the in-memory
 * backend (rule matching among several rules, key resolution and hashing, the decision, header writing),
 * with minimal request and response objects. Sampled, so the report has p50 and p99.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class InProcessBenchmark {
    private Sluice sluice;
    private SluiceFilter filter;
    private FakeExchange exchange;
    private final FilterChain chain = (req, res) -> { };
    private int user;

    @Setup(Level.Trial)
    public void setUp() {
        Map<String, String> p = new HashMap<>();
        // Five rules, two of which match the request: the one limiting it and a dry-run on every /api path.
        p.put("sluice.rules.posts.paths", "/api/posts");
        p.put("sluice.rules.posts.methods", "POST");
        p.put("sluice.rules.posts.key", "header:X-User");
        p.put("sluice.rules.posts.rate", "1000000000/1s");
        p.put("sluice.rules.api.paths", "/api/*");
        p.put("sluice.rules.api.key", "ip");
        p.put("sluice.rules.api.rate", "1000000000/1s");
        p.put("sluice.rules.images.paths", "/api/images/*, *.png");
        p.put("sluice.rules.images.concurrency", "4");
        p.put("sluice.rules.signup.paths", "/signup");
        p.put("sluice.rules.signup.rate", "10/1d");
        p.put("sluice.rules.admin.paths", "/admin/*");
        p.put("sluice.rules.admin.rate", "100/1m");
        sluice = Sluice.builder().properties(p).inMemory().build();
        filter = new SluiceFilter(sluice);
        exchange = new FakeExchange();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sluice.close();
    }

    @Benchmark
    public Object filterOneRequest() throws Exception {
        exchange.reset("user-" + (user++ & 1023));
        filter.doFilter(exchange.request, exchange.response, chain);
        return exchange.headers.get("RateLimit");
    }

    /** Just enough of a request and a response for the filter, answered by dynamic proxies. */
    static final class FakeExchange {
        final Map<String, Object> attributes = new HashMap<>();
        final Map<String, String> headers = new HashMap<>();
        String user;
        final HttpServletRequest request = (HttpServletRequest) Proxy.newProxyInstance(
                FakeExchange.class.getClassLoader(), new Class<?>[]{HttpServletRequest.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "getMethod" -> "POST";
                    case "getServletPath" -> "/api/posts";
                    case "getPathInfo", "getQueryString", "getUserPrincipal", "getCookies" -> null;
                    case "getRemoteAddr" -> "203.0.113.7";
                    case "getHeader" -> "X-User".equalsIgnoreCase((String) args[0]) ? user : null;
                    case "getHeaders" -> java.util.Collections.enumeration("X-User".equalsIgnoreCase((String) args[0])
                            ? java.util.List.of(user) : java.util.List.<String>of());
                    case "getAttribute" -> attributes.get((String) args[0]);
                    case "setAttribute" -> attributes.put((String) args[0], args[1]);
                    case "removeAttribute" -> attributes.remove((String) args[0]);
                    case "isAsyncSupported", "isAsyncStarted" -> false;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        final HttpServletResponse response = (HttpServletResponse) Proxy.newProxyInstance(
                FakeExchange.class.getClassLoader(), new Class<?>[]{HttpServletResponse.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "setHeader" -> headers.put((String) args[0], (String) args[1]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });

        void reset(String user) {
            this.user = user;
            attributes.clear();
            headers.clear();
        }
    }
}
