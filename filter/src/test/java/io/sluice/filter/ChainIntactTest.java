package io.sluice.filter;

import io.sluice.Sluice;
import io.sluice.testing.TestRedis;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sluice never changes which filters and servlets of the application run, nor the dispatcher type they see:
 * an authentication filter and a counting filter mapped after it for REQUEST dispatches only (the default)
 * run exactly once for every request Sluice admits, and an unauthenticated request always gets 401, for rate,
 * concurrency and waiting concurrency rules alike, on every container, whether Sluice itself is mapped for
 * every dispatcher type or for REQUEST only.
 */
class ChainIntactTest {
    private static final String AUTHORIZATION = "Authorization";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** Answers 401 to a request without credentials, as an application's security filter does. */
    static final class Authentication implements Filter {
        final AtomicInteger passed = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();

        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
            if (((HttpServletRequest) req).getHeader(AUTHORIZATION) == null) {
                refused.incrementAndGet();
                ((HttpServletResponse) res).sendError(401);
                return;
            }
            passed.incrementAndGet();
            chain.doFilter(req, res);
        }
    }

    /** Counts what passes, with the dispatcher type it was seen with. */
    static final class Counting implements Filter {
        final Queue<DispatcherType> seen = new ConcurrentLinkedQueue<>();

        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
            seen.add(req.getDispatcherType());
            chain.doFilter(req, res);
        }
    }

    static Stream<Arguments> setups() {
        return Stream.of(Containers.Kind.values()).flatMap(kind -> Stream.of(
                Arguments.of(kind, false), Arguments.of(kind, true)));
    }

    @BeforeEach
    void reset() {
        TestServlets.Gauge.reset();
        TestServlets.Probe.reset();
    }

    @ParameterizedTest(name = "{0}, Sluice on REQUEST dispatches only: {1}")
    @MethodSource("setups")
    void filtersAfterSluiceRunOnceForEveryAdmittedRequest(Containers.Kind kind, boolean requestOnly) throws Exception {
        Authentication auth = new Authentication();
        Counting counting = new Counting();
        Containers.Setup setup = new Containers.Setup(0, requestOnly, List.of(
                new Containers.AppFilter("auth", auth), new Containers.AppFilter("counting", counting)));
        try (Containers.Running server = kind.start(HttpContract.initParams(prefix()), setup)) {
            // A rate rule: without credentials always 401 (the servlet never runs), with them 5 pass, then 429.
            for (int i = 0; i < 3; i++) assertThat(get(server, "/m", "mallory", false).statusCode()).isEqualTo(401);
            assertThat(TestServlets.Probe.calls).hasValue(0);
            for (int i = 0; i < 5; i++) assertThat(get(server, "/m", "alice", true).statusCode()).isEqualTo(200);
            assertThat(get(server, "/m", "alice", true).statusCode()).isEqualTo(429);
            assertThat(TestServlets.Probe.calls).hasValue(5);
            assertThat(TestServlets.Probe.dispatches).hasSize(5).containsOnly(DispatcherType.REQUEST);
            assertThat(auth.refused).hasValue(3);
            assertThat(auth.passed).hasValue(5);
            assertThat(counting.seen).hasSize(5).containsOnly(DispatcherType.REQUEST);

            // A concurrency rule: 3 held at the gate pass both filters once; the 4th is rejected by Sluice alone;
            // an unauthenticated one is refused by the application and gives its permit back.
            Sluice sluice = server.filter().sluice();
            var slow = sluice.rules().get("slow").orElseThrow();
            assertThat(get(server, "/slow", "mallory", false).statusCode()).isEqualTo(401);
            List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) held.add(send(server, "/slow", "bob", true));
            await().atMost(Duration.ofSeconds(30)).until(() -> TestServlets.Gauge.inFlight.get() == 3);
            assertThat(get(server, "/slow", "bob", true).statusCode()).isEqualTo(429);
            // Waiting concurrency: 2 held, a third waits for a permit on its thread, then runs the whole chain.
            List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
            for (int i = 0; i < 3; i++) waiting.add(send(server, "/waiting", "carol", true));
            await().atMost(Duration.ofSeconds(30)).until(() -> TestServlets.Gauge.inFlight.get() == 5);
            TestServlets.Gauge.gate.countDown();
            for (var f : held) assertThat(f.get().statusCode()).isEqualTo(200);
            for (var f : waiting) assertThat(f.get().statusCode()).isEqualTo(200);
            assertThat(TestServlets.Gauge.entered).hasValue(6);
            assertThat(TestServlets.Gauge.peak).hasValue(5);
            assertThat(auth.refused).hasValue(4);
            assertThat(auth.passed).hasValue(5 + 3 + 3);
            assertThat(counting.seen).hasSize(5 + 3 + 3).containsOnly(DispatcherType.REQUEST);
            assertThat(sluice.availablePermits(slow, "*").toCompletableFuture().join()).isEqualTo(3);
        }
    }

    @ParameterizedTest(name = "{0}, Sluice on REQUEST dispatches only: {1}")
    @MethodSource("setups")
    void aSecondSluiceFilterAppliesItsOwnRules(Containers.Kind kind, boolean requestOnly) throws Exception {
        SluiceFilter second = new SluiceFilter();
        Map<String, String> secondParams = Map.of("sluice.redis.address", TestRedis.address(),
                "sluice.key-prefix", prefix(), "config", "classpath:sluice-test.properties",
                "sluice.rules.m.rate", "2/1h");
        Containers.Setup setup = new Containers.Setup(0, requestOnly, List.of(new Containers.AppFilter("second", second, secondParams)));
        try (Containers.Running server = kind.start(HttpContract.initParams(prefix()), setup)) {
            assertThat(get(server, "/m", "dave", true).statusCode()).isEqualTo(200);
            assertThat(get(server, "/m", "dave", true).statusCode()).isEqualTo(200);
            HttpResponse<String> third = get(server, "/m", "dave", true);
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.headers().firstValue("X-RateLimit-Limit")).contains("2");
            assertThat(TestServlets.Probe.calls).hasValue(2);
        }
    }

    private static String prefix() {
        return "chain" + UUID.randomUUID().toString().substring(0, 8);
    }

    private HttpResponse<String> get(Containers.Running server, String path, String user, boolean authenticated) throws Exception {
        return send(server, path, user, authenticated).get();
    }

    private CompletableFuture<HttpResponse<String>> send(Containers.Running server, String path, String user, boolean authenticated) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(60)).header("X-User", user);
        if (authenticated) b.header(AUTHORIZATION, "Bearer t");
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
