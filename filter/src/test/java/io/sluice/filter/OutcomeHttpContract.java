package io.sluice.filter;

import io.restassured.response.Response;
import io.sluice.Sluice;
import io.sluice.redisson.CallerClockBackend;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code count} and {@code settle} through the filter, over real HTTP on a real container and a real Redis, run once per
 * container: failed logins counted and successful ones given back (by status, by {@code sendError}, asynchronously),
 * parallel failures, the headers after the refund, and a metered resource settled from its response header. The
 * engine's scripts take the test's clock, which never moves unless a test moves it: every count and Retry-After is exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutcomeHttpContract {
    private static final long HOUR = 3_600_000L;
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();
    private final Containers.Kind kind;
    private final MutableClock clock = new MutableClock(System.currentTimeMillis() / HOUR * HOUR + 1);
    private final String prefix = "oh" + UUID.randomUUID().toString().substring(0, 8);
    private Sluice sluice;
    private Containers.Running server;

    OutcomeHttpContract(Containers.Kind kind) {
        this.kind = kind;
    }

    @BeforeAll
    void start() {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", prefix);
        // A busy machine: no call may miss its deadline.
        p.put("sluice.backend-timeout", "30s");
        p.put("sluice.rules.login.paths", "/outcome/login, /outcome/login-error");
        p.put("sluice.rules.login.methods", "POST");
        p.put("sluice.rules.login.key", "header:X-User+ip");
        p.put("sluice.rules.login.rate", "5/15m");
        p.put("sluice.rules.login.count", "failure");
        p.put("sluice.rules.alogin.paths", "/outcome/async-login");
        p.put("sluice.rules.alogin.key", "header:X-User");
        p.put("sluice.rules.alogin.rate", "5/15m");
        p.put("sluice.rules.alogin.algorithm", "fixed-window");
        p.put("sluice.rules.alogin.count", "4xx");
        p.put("sluice.rules.llm.paths", "/outcome/llm");
        p.put("sluice.rules.llm.key", "header:X-Customer");
        p.put("sluice.rules.llm.rate", "20000/1h");
        p.put("sluice.rules.llm.algorithm", "token-bucket");
        p.put("sluice.rules.llm.cost", "1000");
        p.put("sluice.rules.llm.settle", "header:X-Tokens-Used");
        p.put("sluice.rules.allm.paths", "/outcome/async-llm");
        p.put("sluice.rules.allm.key", "header:X-Customer");
        p.put("sluice.rules.allm.rate", "20000/1h");
        p.put("sluice.rules.allm.algorithm", "fixed-window");
        p.put("sluice.rules.allm.cost", "1000");
        p.put("sluice.rules.allm.settle", "header:X-Tokens-Used");
        p.put("sluice.rules.rows.paths", "/outcome/rows");
        p.put("sluice.rules.rows.key", "header:X-Customer");
        p.put("sluice.rules.rows.rate", "100/1h");
        p.put("sluice.rules.rows.algorithm", "fixed-window");
        p.put("sluice.rules.rows.cost", "10");
        p.put("sluice.rules.rows.settle", "header:X-Rows;keep");
        sluice = Sluice.builder().properties(p).backend(CallerClockBackend.of(redisson.client(), clock)).clock(clock).build();
        server = kind.start(new SluiceFilter(sluice));
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
        if (sluice != null) sluice.close();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.port() + "/outcome" + path;
    }

    private Response login(String path, String user, String password) {
        return given().header("X-User", user).header("X-Password", password).post(url(path));
    }

    private static void advertises(Response r, int remaining) {
        assertThat(r.getHeader("X-RateLimit-Limit")).isEqualTo("5");
        assertThat(r.getHeader("X-RateLimit-Remaining")).isEqualTo(Integer.toString(remaining));
        assertThat(r.getHeader("RateLimit")).startsWith("\"login\";r=" + remaining + ";t=");
    }

    /**
     * Successful logins before and between the failures pass and advertise the permit they give back; the 5 failures
     * (by status and by sendError) count down; the 6th attempt, right password or not, is rejected for 15 minutes.
     */
    @Test
    void fiveFailedLoginsThen429WhileSuccessfulLoginsPass() {
        String user = "u-" + UUID.randomUUID();
        for (int i = 0; i < 8; i++) {
            Response ok = login("/login", user, "right");
            assertThat(ok.statusCode()).isEqualTo(200);
            advertises(ok, 5);
        }
        for (int i = 1; i <= 5; i++) {
            Response wrong = login(i % 2 == 0 ? "/login-error" : "/login", user, "wrong");
            assertThat(wrong.statusCode()).as("failure " + i).isEqualTo(401);
            advertises(wrong, 5 - i);
            if (i < 5) {
                Response ok = login("/login", user, "right");
                assertThat(ok.statusCode()).isEqualTo(200);
                advertises(ok, 5 - i);
            }
        }
        for (String password : List.of("wrong", "right")) {
            Response rejected = login("/login", user, password);
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.getHeader("Retry-After")).isEqualTo("900");
            advertises(rejected, 0);
        }
        assertThat(login("/login", "other-" + user, "wrong").statusCode()).as("another user's counter").isEqualTo(401);
    }

    /** 20 wrong passwords at once against 5: exactly 5 reach the application, 15 are rejected. */
    @Test
    void parallelFailuresNeverPassTheLimit() throws Exception {
        String user = "p-" + UUID.randomUUID();
        int callers = 20;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CyclicBarrier together = new CyclicBarrier(callers);
            List<Future<Integer>> statuses = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                statuses.add(pool.submit(() -> {
                    together.await();
                    return login("/login", user, "wrong").statusCode();
                }));
            }
            int unauthorized = 0;
            int rejected = 0;
            for (Future<Integer> f : statuses) {
                int s = f.get();
                if (s == 401) unauthorized++;
                else if (s == 429) rejected++;
            }
            assertThat(unauthorized).isEqualTo(5);
            assertThat(rejected).isEqualTo(15);
            System.out.println("OutcomeHttpContract " + kind + ": " + callers + " parallel failures: " + unauthorized
                    + " x 401, " + rejected + " x 429");
        } finally {
            pool.shutdownNow();
        }
    }

    /** The fixed window's counter of the only key of {@code rule} for this test, as Redis holds it (0 when none). */
    private long counter(String rule) {
        List<String> keys = new ArrayList<>();
        redisson.client().getKeys().getKeysByPattern(prefix + "*" + rule + "*").forEach(keys::add);
        if (keys.isEmpty()) return 0;
        assertThat(keys).hasSize(1);
        String state = redisson.client().<String>getBucket(keys.get(0), StringCodec.INSTANCE).get();
        return Long.parseLong(state.substring(state.indexOf(':') + 1));
    }

    /**
     * An async login completes on another thread: a success's permit comes back when it completes (the counter in
     * Redis back at 0 after each), a 401 keeps its own; the sixth attempt is rejected.
     */
    @Test
    void asyncLoginsCountWhenTheyComplete() {
        String user = "a-" + UUID.randomUUID();
        for (int i = 0; i < 6; i++) {
            Response ok = login("/async-login", user, "right");
            assertThat(ok.statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> counter("alogin") == 0);
        }
        for (int i = 1; i <= 5; i++) {
            assertThat(login("/async-login", user, "wrong").statusCode()).isEqualTo(401);
            int counted = i;
            await().atMost(Duration.ofSeconds(30)).until(() -> counter("alogin") == counted);
        }
        assertThat(login("/async-login", user, "right").statusCode()).isEqualTo(429);
        assertThat(counter("alogin")).isEqualTo(5);
    }

    /**
     * Issue 24's example over HTTP: estimated at 1 000 tokens, each response reporting 3 000, against 20000/1h: 7
     * admitted (the 7th on 18 000 used), the key settled to 21 000, the 8th rejected for the 360 s that repay 2 000.
     * The reporting header never reaches the client.
     */
    @Test
    void aMeteredResourceSettlesFromItsResponseHeader() {
        String customer = "c-" + UUID.randomUUID();
        for (int i = 1; i <= 7; i++) {
            Response r = given().header("X-Customer", customer).header("X-Report", "3000").get(url("/llm"));
            assertThat(r.statusCode()).as("request " + i).isEqualTo(200);
            assertThat(r.getHeader("X-Tokens-Used")).isNull();
            assertThat(r.getHeader("X-RateLimit-Remaining")).isEqualTo(Long.toString(20000 - 3000L * (i - 1) - 1000));
        }
        Response eighth = given().header("X-Customer", customer).header("X-Report", "3000").get(url("/llm"));
        assertThat(eighth.statusCode()).isEqualTo(429);
        assertThat(eighth.getHeader("Retry-After")).isEqualTo("360");
        assertThat(eighth.getHeader("X-RateLimit-Remaining")).isEqualTo("0");
    }

    /**
     * Completed asynchronously, the header set on the async context's response: held back from the client, and the key
     * settled to what it reported once the request completes (the window's counter in Redis).
     */
    @Test
    void anAsyncMeteredResourceSettlesWhenItCompletes() {
        String customer = "c-" + UUID.randomUUID();
        Response first = given().header("X-Customer", customer).header("X-Report", "19000").get(url("/async-llm"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.getHeader("X-Tokens-Used")).isNull();
        assertThat(first.getHeader("X-RateLimit-Remaining")).isEqualTo("19000");
        await().atMost(Duration.ofSeconds(30)).until(() -> counter("allm") == 19000);
        Response second = given().header("X-Customer", customer).header("X-Report", "500").get(url("/async-llm"));
        assertThat(second.getHeader("X-RateLimit-Remaining")).isEqualTo("0");
        await().atMost(Duration.ofSeconds(30)).until(() -> counter("allm") == 19500);
        assertThat(given().header("X-Customer", customer).get(url("/async-llm")).statusCode()).isEqualTo(429);
    }

    /**
     * {@code ;keep} lets the header through; a garbled, negative or missing report keeps the estimate; a huge one is
     * charged at most 100 periods of the rule (a key in debt until the window ends); below the estimate gives back.
     */
    @Test
    void brokenReportsKeepTheEstimateAndHugeOnesAreClamped() {
        String customer = "r-" + UUID.randomUUID();
        Response kept = given().header("X-Customer", customer).header("X-Report", "3").get(url("/rows"));
        assertThat(kept.getHeader("X-Rows")).isEqualTo("3");
        assertThat(counter("rows")).as("10 estimated, 3 reported").isEqualTo(3);
        for (String broken : List.of("lots", "-50", "12.5", "")) {
            given().header("X-Customer", customer).header("X-Report", broken).get(url("/rows"));
        }
        given().header("X-Customer", customer).get(url("/rows"));
        assertThat(counter("rows")).as("the estimate kept five times").isEqualTo(3 + 5 * 10);
        given().header("X-Customer", customer).header("X-Report", "9".repeat(30)).get(url("/rows"));
        assertThat(counter("rows")).as("100 periods of 100 at most").isEqualTo(53 + 10_000 - 10 + 10);
        Response inDebt = given().header("X-Customer", customer).get(url("/rows"));
        assertThat(inDebt.statusCode()).isEqualTo(429);
        assertThat(inDebt.getHeader("Retry-After")).isEqualTo(Long.toString((HOUR - 1 + 999) / 1000));
    }
}
