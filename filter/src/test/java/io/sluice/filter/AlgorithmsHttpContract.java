package io.sluice.filter;

import io.sluice.testing.AlgorithmCases;
import io.sluice.testing.AlgorithmCases.Case;
import io.sluice.testing.AlgorithmCases.Mode;
import io.sluice.testing.AlgorithmCases.Range;
import io.sluice.testing.AlgorithmCases.Times;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Exact counts and headers through the filter over real HTTP and a real Redis, for every algorithm under every
 * throttling mode ({@link AlgorithmCases}), for static and per-path costs, and for a leaky bucket's queue waiting on
 * the request thread. Run once per container.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AlgorithmsHttpContract {
    /** The leaky bucket whose queued requests wait: 5/10s is one slot every 2 s, two may wait. */
    private static final long PACE_MILLIS = 2_000;
    private static final int QUEUE = 2;
    /** The algorithms with permits to charge a cost from (a leaky bucket takes slots of its pace instead). */
    private static final List<String> PERMIT_ALGORITHMS = List.of("sliding-log", "token-bucket", "fixed-window", "sliding-window");

    private final Containers.Kind kind;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private Containers.Running server;

    AlgorithmsHttpContract(Containers.Kind kind) {
        this.kind = kind;
    }

    static List<Case> cases() {
        return AlgorithmCases.all();
    }

    @BeforeAll
    void start() throws IOException {
        List<String> lines = new ArrayList<>(List.of("sluice.backend-timeout=5s"));
        for (Case c : cases()) lines.addAll(c.properties("/alg/" + c.rule(), "header:X-User"));
        for (String a : PERMIT_ALGORITHMS) {
            lines.add("sluice.rules.cost-" + a + ".paths=/alg/cost-" + a);
            lines.add("sluice.rules.cost-" + a + ".key=header:X-User");
            lines.add("sluice.rules.cost-" + a + ".rate=4/1d");
            lines.add("sluice.rules.cost-" + a + ".algorithm=" + a);
            lines.add("sluice.rules.cost-" + a + ".cost=2");
            lines.add("sluice.rules.costs-" + a + ".paths=/alg/costs-" + a + "/*");
            lines.add("sluice.rules.costs-" + a + ".key=header:X-User");
            lines.add("sluice.rules.costs-" + a + ".rate=4/1d");
            lines.add("sluice.rules.costs-" + a + ".algorithm=" + a);
            lines.add("sluice.rules.costs-" + a + ".costs=/alg/costs-" + a + "/big=3");
        }
        lines.add("sluice.rules.queued.paths=/alg/queued");
        lines.add("sluice.rules.queued.key=header:X-User");
        lines.add("sluice.rules.queued.rate=5/10s");
        lines.add("sluice.rules.queued.algorithm=leaky-bucket");
        lines.add("sluice.rules.queued.queue=" + QUEUE);
        Path rules = Files.createTempFile("sluice-algorithms", ".properties");
        rules.toFile().deleteOnExit();
        Files.write(rules, lines, StandardCharsets.UTF_8);
        server = kind.start(Map.of("config", "file:" + rules,
                "sluice.redis.address", TestRedis.address(),
                "sluice.key-prefix", "alg" + UUID.randomUUID().toString().substring(0, 8)));
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
    }

    private HttpResponse<String> get(String path, String user) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("X-User", user).timeout(Duration.ofSeconds(30)).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void admitsExactlyItsLimitThenRejectsWithExactHeaders(Case c) {
        String user = "u-" + UUID.randomUUID();
        String path = "/alg/" + c.rule();
        Times times = new Times();
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (int i = 0; i <= c.admitted(); i++) responses.add(times.measure(() -> get(path, user)));
        assumeTrue(times.oneWindow(), "the test ran across a day boundary of the windows");

        for (int k = 1; k <= c.admitted(); k++) {
            HttpResponse<String> r = responses.get(k - 1);
            String at = c + " request " + k;
            assertThat(r.statusCode()).as(at).isEqualTo(200);
            long remaining = c.remainingAfter(k);
            long reset = Long.parseLong(header(r, "X-RateLimit-Reset"));
            assertThat(reset).as(at + " reset, expected " + c.reset(k, times)).matches(c.reset(k, times)::contains);
            assertThat(header(r, "X-RateLimit-Limit")).as(at).isEqualTo("4");
            assertThat(header(r, "X-RateLimit-Remaining")).as(at).isEqualTo(Long.toString(remaining));
            assertThat(header(r, "RateLimit-Policy")).as(at).isEqualTo("\"" + c.rule() + "\";q=4;w=86400");
            assertThat(header(r, "RateLimit")).as(at).isEqualTo("\"" + c.rule() + "\";r=" + remaining + ";t=" + reset);
            assertThat(header(r, "Retry-After")).as(at).isNull();
        }
        HttpResponse<String> rejected = responses.get(c.admitted());
        assertThat(rejected.statusCode()).as(c + " rejected").isEqualTo(429);
        Range expected = c.retryAfter(times).atLeastOne();
        long retry = Long.parseLong(header(rejected, "Retry-After"));
        assertThat(retry).as(c + " Retry-After, expected " + expected).matches(expected::contains);
        assertThat(header(rejected, "X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(header(rejected, "X-RateLimit-Limit")).isEqualTo("4");
        long t = Long.parseLong(header(rejected, "X-RateLimit-Reset"));
        assertThat(t).as("Retry-After is never earlier than t").isLessThanOrEqualTo(retry);
        assertThat(header(rejected, "RateLimit")).isEqualTo("\"" + c.rule() + "\";r=0;t=" + t);
        assertThat(rejected.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Request limit reached. Retry after " + retry + " second" + (retry == 1 ? "" : "s")
                + ".\",\"violated-policies\":[\"" + c.rule() + "\"]}");

        if (c.mode() == Mode.ELASTIC) {
            // The capacity rule is global and has lent its one permit: another key gets its own limit, nothing more.
            String other = "v-" + UUID.randomUUID();
            for (int k = 1; k <= AlgorithmCases.LIMIT; k++) assertThat(get(path, other).statusCode()).as(c + " other " + k).isEqualTo(200);
            assertThat(get(path, other).statusCode()).as(c + " other over the limit").isEqualTo(429);
        }
    }

    /** {@code cost=2} of 4: two requests, then a rejection that took nothing. */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void aStaticCostTakesThatManyPermits(String algorithm) {
        String user = "c-" + UUID.randomUUID();
        String path = "/alg/cost-" + algorithm;
        assertRemaining(get(path, user), 200, "2");
        assertRemaining(get(path, user), 200, "0");
        assertRemaining(get(path, user), 429, "0");
    }

    /** {@code costs=/big=3}, else 1, of 4: a big one, a small one, then any is rejected. */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void perPathCostsChargeByPath(String algorithm) {
        String user = "p-" + UUID.randomUUID();
        String base = "/alg/costs-" + algorithm;
        assertRemaining(get(base + "/big", user), 200, "1");
        assertRemaining(get(base + "/small", user), 200, "0");
        assertRemaining(get(base + "/big", user), 429, "0");
        assertRemaining(get(base + "/small", user), 429, "0");
        // (A rejected costly request must not shield a cheap one that fits: the attack shield's per-cost rule, tested
        // with the shield.)
    }

    private static void assertRemaining(HttpResponse<String> r, int status, String remaining) {
        assertThat(r.statusCode()).isEqualTo(status);
        assertThat(header(r, "X-RateLimit-Remaining")).isEqualTo(remaining);
    }

    /**
     * Five requests at once on a leaky bucket of one slot per 2 s and a queue of 2: one proceeds at once, two wait on
     * their request threads for their slots (the filter never suspends a request), two are rejected at once with the
     * first free slot.
     */
    @Test
    void aLeakyBucketQueueWaitsOnTheRequestThreadForItsSlot() {
        String user = "q-" + UUID.randomUUID();
        long sent = System.nanoTime();
        List<CompletableFuture<long[]>> calls = new ArrayList<>();
        for (int i = 0; i < QUEUE + 3; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> {
                HttpResponse<String> r = get("/alg/queued", user);
                long doneMillis = (System.nanoTime() - sent) / 1_000_000;
                long retry = r.statusCode() == 429 ? Long.parseLong(header(r, "Retry-After")) : 0;
                return new long[]{r.statusCode(), doneMillis, retry};
            }));
        }
        List<long[]> answers = calls.stream().map(CompletableFuture::join).toList();
        List<Long> admittedAt = answers.stream().filter(a -> a[0] == 200).map(a -> a[1]).sorted().toList();
        List<long[]> rejected = answers.stream().filter(a -> a[0] == 429).toList();
        assertThat(admittedAt).hasSize(QUEUE + 1);
        assertThat(rejected).hasSize(2);
        // The first request's slot is when it reached Redis, after `sent`: the k-th waits k paces more.
        for (int k = 1; k <= QUEUE; k++) {
            assertThat(admittedAt.get(k)).as("slot " + k).isGreaterThanOrEqualTo(k * PACE_MILLIS - 5);
        }
        // Told to come back when the first waiting place frees: within a pace.
        assertThat(rejected).allSatisfy(a -> assertThat(a[2]).isBetween(1L, PACE_MILLIS / 1000));
    }
}
