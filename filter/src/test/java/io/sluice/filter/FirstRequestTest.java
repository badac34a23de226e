package io.sluice.filter;

import io.sluice.testing.ChaosProxy;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A newcomer's first run: a fresh container with the README's quick-start rules ({@code 10/1h}, every setting at
 * its default), Redis up but slow to answer at first (what reaches it in the first 1.5 s is answered only then, as
 * a remote Redis behind TLS and AUTH may be), and a burst of 11 POSTs sent at the first instant the HTTP port accepts a connection. The first
 * request must be decided in Redis: exactly 10 admitted, 1 rejected, every response with rate headers; then the
 * quick start's concurrency rule ({@code 4} in flight): of 6 at once, exactly 4 run and 2 are turned away. With
 * {@code sluice.await-backend} at its old default ({@code 0s}) all 11 went through, none with a header.
 */
class FirstRequestTest {
    private static final Duration SLOW_FIRST_ANSWERS = Duration.ofMillis(1500);
    private static final int BURST = 11;
    private static final int LIMIT = 10;
    private static final int IMAGES = 6;
    private static final int IMAGE_LIMIT = 4;

    @ParameterizedTest
    @EnumSource(value = Containers.Kind.class, names = {"JETTY", "TOMCAT"})
    void aBurstAtTheFirstInstantThePortAnswersIsDecidedInRedis(Containers.Kind kind) throws Exception {
        try (RedisProcess redis = RedisProcess.start(TestRedis.freePort(), false, List.of());
             ChaosProxy slowAtFirst = ChaosProxy.to(redis.port())) {
            slowAtFirst.slowAtFirst(SLOW_FIRST_ANSWERS);
            int port = TestRedis.freePort();
            Map<String, String> params = Map.of(
                    "config", "classpath:sluice-quick-start.properties",
                    "sluice.redis.address", slowAtFirst.address(),
                    "sluice.key-prefix", "first-request-" + UUID.randomUUID());
            CompletableFuture<Containers.Running> starting = CompletableFuture.supplyAsync(
                    () -> kind == Containers.Kind.JETTY ? Containers.jetty(params, Containers.Setup.DEFAULT, port)
                            : Containers.tomcat(params, Containers.Setup.DEFAULT, port));
            try {
                await("the HTTP port accepting a connection").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(5)).failFast(starting::isCompletedExceptionally)
                        .until(() -> accepts(port));
                List<HttpResponse<String>> burst = burst(port);

                List<Integer> statuses = burst.stream().map(HttpResponse::statusCode).toList();
                assertThat(statuses).as("statuses").filteredOn(s -> s == 200).hasSize(LIMIT);
                assertThat(statuses).as("statuses").filteredOn(s -> s == 429).hasSize(BURST - LIMIT);
                for (HttpResponse<String> r : burst) {
                    assertThat(r.headers().firstValue("X-RateLimit-Limit")).as("X-RateLimit-Limit").hasValue("10");
                    assertThat(r.headers().firstValue("RateLimit-Policy")).as("RateLimit-Policy")
                            .hasValue("\"posts\";q=10;w=3600");
                }
                assertThat(burst.stream().map(r -> r.headers().firstValue("X-RateLimit-Remaining").orElseThrow()).sorted())
                        .containsExactly("0", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9");

                // Then the quick start's concurrency rule, whose first decision in the JVM is slow too.
                TestServlets.Gauge.reset();
                List<CompletableFuture<HttpResponse<String>>> generating = send(port, "GET", "/slow", IMAGES);
                await("4 generations running, 2 turned away").atMost(Duration.ofSeconds(60))
                        .until(() -> TestServlets.Gauge.entered.get() == IMAGE_LIMIT
                                && generating.stream().filter(f -> f.isDone() && f.join().statusCode() == 429).count()
                                == IMAGES - IMAGE_LIMIT);
                TestServlets.Gauge.gate.countDown();
                List<Integer> images = generating.stream().map(f -> f.join().statusCode()).toList();
                assertThat(images).as("image statuses").filteredOn(s -> s == 200).hasSize(IMAGE_LIMIT);
                assertThat(images).as("image statuses").filteredOn(s -> s == 429).hasSize(IMAGES - IMAGE_LIMIT);
                assertThat(TestServlets.Gauge.peak.get()).as("peak in flight").isEqualTo(IMAGE_LIMIT);
            } finally {
                starting.join().close();
            }
        }
    }

    /** Whether a TCP connection to the port is accepted (the container may not serve it yet: the request then waits). */
    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** 11 POSTs sent together, each on a connection of its own, answered in any order. */
    private static List<HttpResponse<String>> burst(int port) {
        return send(port, "POST", "/api/posts", BURST).stream().map(CompletableFuture::join).toList();
    }

    /** {@code count} requests sent together, each on a connection of its own. */
    private static List<CompletableFuture<HttpResponse<String>>> send(int port, String method, String path, int count) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("X-User", "alice").method(method, HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(60)).build();
            sent.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        return sent;
    }
}
