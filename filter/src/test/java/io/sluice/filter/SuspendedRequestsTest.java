package io.sluice.filter;

import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Requests waiting for their decision are suspended (AsyncContext), not parked on container threads: with a
 * small thread pool, more requests than threads wait for a concurrency permit and the container still serves
 * others; every one of them is served in turn. With the filter mapped for every dispatcher type and for
 * REQUEST dispatches only.
 */
class SuspendedRequestsTest {
    private static final int THREADS = 8;
    private static final int WAITERS = 3 * THREADS;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    static Stream<Arguments> setups() {
        return Stream.of(Containers.Kind.values()).flatMap(kind -> Stream.of(
                Arguments.of(kind, false), Arguments.of(kind, true)));
    }

    @BeforeEach
    void resetGauge() {
        TestServlets.Gauge.reset();
    }

    @ParameterizedTest(name = "{0}, REQUEST dispatches only: {1}")
    @MethodSource("setups")
    void moreWaitersThanThreadsAreAllServedWhileTheContainerStaysResponsive(Containers.Kind kind, boolean requestOnly) {
        String prefix = "susp" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(TestRedis.address()).isNotBlank();
        try (Containers.Running server = kind.start(HttpContract.initParams(prefix), new Containers.Setup(THREADS, requestOnly))) {
            Sluice sluice = server.filter().sluice();
            List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) waiting.add(send(server, "/waiting"));
            // Two hold the permits at the gate; every other one has asked Redis and waits, suspended.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(TestServlets.Gauge.inFlight.get()).isEqualTo(2);
                assertThat(sluice.stats().backendCalls()).isGreaterThanOrEqualTo(WAITERS);
            });
            assertThat(waiting).noneMatch(CompletableFuture::isDone);
            // A container thread is still free for an unlimited resource...
            assertThat(send(server, "/open").orTimeout(20, java.util.concurrent.TimeUnit.SECONDS).join().statusCode()).isEqualTo(200);
            // ...and a rejection decided by Redis is written while the waiters wait (the admitted ones run async).
            List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
            for (int i = 0; i < 4; i++) slow.add(send(server, "/async"));
            await().atMost(Duration.ofSeconds(30)).until(() -> slow.stream().anyMatch(CompletableFuture::isDone));
            HttpResponse<String> rejected = slow.stream().filter(CompletableFuture::isDone).findFirst().orElseThrow().join();
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"slow\";r=0");
            assertThat(rejected.body()).contains("\"violated-policies\":[\"slow\"]");

            TestServlets.Gauge.gate.countDown();
            List<HttpResponse<String>> done = waiting.stream().map(f -> f.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join()).toList();
            assertThat(done).allSatisfy(r -> {
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("done");
                assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue("\"waiting\";q=2;qu=\"concurrent-requests\"");
            });
            slow.forEach(CompletableFuture::join);
            assertThat(TestServlets.Gauge.entered.get()).isEqualTo(WAITERS + 3);
            var rule = sluice.rules().get("waiting").orElseThrow();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(sluice.availablePermits(rule, KeyResolver.GLOBAL).toCompletableFuture().join()).isEqualTo(2));
            HttpContract.awaitAllPermitsFree(sluice);
        }
    }

    private CompletableFuture<HttpResponse<String>> send(Containers.Running server, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(90)).GET().build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }
}
