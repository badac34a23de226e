package io.sluice.filter;

import io.sluice.Sluice;
import io.sluice.redisson.CallerClockBackend;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedisson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code block} over real HTTP: a Jetty and a Tomcat, each with its own engine and Redisson client on one Redis, and
 * one injected clock for the scripts' time. The key a rule rejected on one server is rejected on both, with
 * {@code Retry-After} the block's time left counting down as the clock moves, until the block ends; a reset on one
 * server lifts it on both.
 */
class BlockAcrossServersTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final MutableClock clock = MutableClock.startingNow();
    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<Sluice> engines = new ArrayList<>();
    private Containers.Running jetty;
    private Containers.Running tomcat;

    private Sluice engine(Map<String, String> rules) {
        RedissonClient redis = TestRedisson.client();
        clients.add(redis);
        Sluice s = Sluice.builder().properties(rules).backend(CallerClockBackend.of(redis, clock)).clock(clock).build();
        engines.add(s);
        return s;
    }

    @BeforeEach
    void start() {
        Map<String, String> rules = Map.of(
                "sluice.key-prefix", "block" + UUID.randomUUID().toString().substring(0, 8),
                "sluice.backend-timeout", "5s",
                "sluice.rules.login.paths", "/api/posts",
                "sluice.rules.login.methods", "POST",
                "sluice.rules.login.key", "header:X-User",
                "sluice.rules.login.rate", "3/1m",
                "sluice.rules.login.block", "15m");
        jetty = Containers.jetty(new SluiceFilter(engine(rules)));
        tomcat = Containers.tomcat(new SluiceFilter(engine(rules)));
    }

    @AfterEach
    void stop() {
        jetty.close();
        tomcat.close();
        engines.forEach(Sluice::close);
        clients.forEach(RedissonClient::shutdown);
    }

    private HttpResponse<Void> post(Containers.Running server, String user) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/posts"))
                .header("X-User", user).POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build();
        return http.send(request, HttpResponse.BodyHandlers.discarding());
    }

    private static void assertBlocked(HttpResponse<Void> r, long secondsLeft) {
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("Retry-After")).hasValue(Long.toString(secondsLeft));
        assertThat(r.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(r.headers().firstValue("X-RateLimit-Reset")).hasValue(Long.toString(secondsLeft));
    }

    @Test
    void aBlockHoldsOnBothServersWithRetryAfterCountingDown() throws Exception {
        List<Containers.Running> servers = List.of(jetty, tomcat);
        for (int i = 0; i < 3; i++) assertThat(post(servers.get(i % 2), "mallory").statusCode()).isEqualTo(200);
        assertBlocked(post(tomcat, "mallory"), 900);
        assertBlocked(post(jetty, "mallory"), 900);
        assertThat(post(jetty, "trent").statusCode()).isEqualTo(200);

        clock.advance(Duration.ofMinutes(10));
        assertBlocked(post(jetty, "mallory"), 300);
        assertBlocked(post(tomcat, "mallory"), 300);
        clock.advance(Duration.ofMinutes(4).plusSeconds(59));
        assertBlocked(post(tomcat, "mallory"), 1);
        assertBlocked(post(jetty, "mallory"), 1);

        // The block's end: the full limit again (a blocked request took nothing), then a block again.
        clock.advance(Duration.ofSeconds(1));
        int admitted = 0;
        for (int i = 0; i < 6; i++) if (post(servers.get(i % 2), "mallory").statusCode() == 200) admitted++;
        assertThat(admitted).isEqualTo(3);
        assertBlocked(post(jetty, "mallory"), 900);

        // A reset on one server lifts the block on both.
        engines.get(1).reset("login", "mallory").toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(post(jetty, "mallory").statusCode()).isEqualTo(200);
        assertThat(post(tomcat, "mallory").statusCode()).isEqualTo(200);
    }
}
