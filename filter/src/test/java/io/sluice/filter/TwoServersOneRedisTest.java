package io.sluice.filter;

import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Jetty and a Tomcat, each with its own Sluice and Redisson client, share one Redis: the limits hold
 * across both as if they were one server.
 */
class TwoServersOneRedisTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private Containers.Running jetty;
    private Containers.Running tomcat;

    @BeforeEach
    void start() {
        String prefix = "two" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(TestRedis.address()).isNotBlank();
        jetty = Containers.jetty(HttpContract.initParams(prefix));
        tomcat = Containers.tomcat(HttpContract.initParams(prefix));
        TestServlets.Gauge.reset();
    }

    @AfterEach
    void stop() {
        jetty.close();
        tomcat.close();
    }

    private URI uri(Containers.Running server, String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    @Test
    void aRateLimitHoldsExactlyAcrossBothServers() {
        String user = "both-" + UUID.randomUUID();
        List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Containers.Running target = i % 2 == 0 ? jetty : tomcat;
            HttpRequest request = HttpRequest.newBuilder(uri(target, "/api/posts")).header("X-User", user)
                    .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build();
            sent.add(http.sendAsync(request, HttpResponse.BodyHandlers.discarding()));
        }
        int admitted = 0;
        int rejected = 0;
        for (CompletableFuture<HttpResponse<Void>> f : sent) {
            int status = f.join().statusCode();
            if (status == 200) admitted++;
            else if (status == 429) rejected++;
        }
        assertThat(admitted).isEqualTo(5);
        assertThat(rejected).isEqualTo(35);
    }

    @Test
    void theConcurrencyCapHoldsAcrossBothServers() {
        int clients = 12;
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger tooMany = new AtomicInteger();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Containers.Running target = i % 2 == 0 ? jetty : tomcat;
            String path = i % 4 < 2 ? "/slow" : "/async";
            HttpRequest request = HttpRequest.newBuilder(uri(target, path)).timeout(Duration.ofSeconds(60)).GET().build();
            sent.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                if (r != null && r.statusCode() == 200) ok.incrementAndGet();
                if (r != null && r.statusCode() == 429) tooMany.incrementAndGet();
            }));
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(tooMany.get()).isEqualTo(clients - 3);
            assertThat(TestServlets.Gauge.inFlight.get()).isEqualTo(3);
        });
        TestServlets.Gauge.gate.countDown();
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
        assertThat(ok.get()).isEqualTo(3);
        assertThat(TestServlets.Gauge.peak.get()).isEqualTo(3);
        HttpContract.awaitAllPermitsFree(jetty.filter().sluice());
        HttpContract.awaitAllPermitsFree(tomcat.filter().sluice());
    }
}
