package io.sluice.examples.war;

import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * The servlet containers' checks ({@link WarContract}) plus what an application server adds: {@code @Limited}
 * beans on the server's own CDI under Jakarta REST, with Sluice's exception mapper, next to the filter.
 * Each server runs the WAR and its two variants ({@link AppServers}).
 */
abstract class AppServerContract extends WarContract {
    private static final int GENERATIONS_LIMIT = 2;
    private static final int POSTS_LIMIT = 5;
    private static final int CROWD = 4 * POSTS_LIMIT;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    AppServerContract(String servletVersion, String serverInfo, Function<Map<String, String>, Deployed> deploy) {
        super(new Server(servletVersion, serverInfo, deploy));
    }

    /** The URL of another application on the same server. */
    private String otherApp(String context, String path) {
        String base = app.baseUrl();
        return base.substring(0, base.length() - StockContainers.CONTEXT.length()) + "/" + context + path;
    }

    @Test
    void concurrentPostsAreAdmittedExactlyUpToTheLimitThroughTheFilterAndThroughJakartaRest() {
        for (String path : List.of("/api/posts", "/rest/posts")) {
            String user = "crowd-" + UUID.randomUUID();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < CROWD; i++) {
                HttpRequest post = HttpRequest.newBuilder(URI.create(url(path))).header("X-User", user)
                        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.noBody()).build();
                responses.add(http.sendAsync(post, HttpResponse.BodyHandlers.ofString()));
            }
            List<Integer> statuses = responses.stream().map(f -> f.join().statusCode()).toList();
            assertThat(statuses).as(path).containsOnly(201, 429);
            assertThat(statuses.stream().filter(s -> s == 201).count()).as(path + " admitted").isEqualTo(POSTS_LIMIT);
        }
        assertDecidedByRedis();
    }

    /**
     * POST /api/posts passes the filter's rule {@code posts} and then a {@code @Limited("posts")} bean: counted once.
     * POST /rest/posts reaches only the bean; both share one budget, and Jakarta REST answers a rejection as the
     * filter does.
     */
    @Test
    void aRuleIsCountedOnceAcrossFilterAndInterceptorAndJakartaRestAnswersAsTheFilterDoes() {
        String user = "both-" + UUID.randomUUID();
        long firstSent = System.nanoTime();
        for (int remaining = 4; remaining >= 3; remaining--) {
            given().header("X-User", user).post(url("/api/posts")).then().statusCode(201)
                    .header("X-RateLimit-Remaining", Integer.toString(remaining));
        }
        for (int i = 0; i < 3; i++) {
            given().header("X-User", user).post(url("/rest/posts")).then().statusCode(201);
        }
        assertPostRejected(given().header("X-User", user).post(url("/api/posts")), firstSent, user);
        assertPostRejected(given().header("X-User", user).post(url("/rest/posts")), firstSent, user);
        assertDecidedByRedis();
    }

    @Test
    void generationsThroughTheInterceptorPeakAtExactlyTheLimitAndReturnEveryPermit() {
        assertBatchCapped(generations("/rest/generations/sync"));
        assertBatchCapped(generations("/rest/generations/async"));
        assertBatchCapped(generations("/rest/generations/sync", "/rest/generations/async"));
    }

    private static Batch generations(String... paths) {
        return new Batch("generations", GENERATIONS_LIMIT, List.of(paths), "report ready\n", false);
    }

    /**
     * A {@code @Limited @Transactional(NEVER)} method called inside a transaction: Sluice's interceptor runs first,
     * so the limit counts the call before the transaction interceptor refuses it, and rejects it once used up.
     * Were the transaction interceptor first, every call would be refused before Sluice saw it.
     */
    @Test
    void theLimitIsDecidedBeforeTheTransactionOpens() {
        String user = "tx-" + UUID.randomUUID();
        for (int i = 0; i < 2; i++) {
            assertThat(given().header("X-User", user).post(url("/rest/transfers/in-transaction")).asString())
                    .isEqualTo("jakarta.transaction.TransactionalException");
        }
        assertThat(given().header("X-User", user).post(url("/rest/transfers/in-transaction")).asString())
                .isEqualTo("io.sluice.LimitExceededException");

        String other = "tx-" + UUID.randomUUID();
        for (int i = 0; i < 2; i++) {
            given().header("X-User", other).post(url("/rest/transfers")).then().statusCode(200).body(equalTo("transferred"));
        }
        Response rejected = given().header("X-User", other).post(url("/rest/transfers"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.getHeader("X-RateLimit-Limit")).isEqualTo("2");
        assertThat(rejected.jsonPath().getList("violated-policies")).containsExactly("transfers");
    }

    @Test
    void theFilterAndCdiShareOneEngine() {
        given().get(url("/rest/engine")).then().statusCode(200)
                .body("published", equalTo(true))
                .body("sameEngine", equalTo(true));
    }

    @Test
    void anUnknownRuleFailsTheDeploymentNamingIt() {
        assertThat(given().get(otherApp(AppServers.BROKEN, "/probe")).statusCode()).isNotEqualTo(200);
        assertThat(((ContainerProcess) app).wholeLog()).contains("names unknown rule '" + AppServers.MISSING_RULE + "'");
    }

    /**
     * Sluice's own warnings, logged through whatever logging the server gives the application. The app without
     * Redis waits {@code sluice.await-backend} (10 s) before it serves, and a server that deploys one app after
     * another (Payara Micro) answers 404 until then: so the request is sent again until the warning is logged.
     */
    @Test
    void sluicesBackendFailureWarningIsInTheServerLog() {
        await("Sluice's warning in the server's log").atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    given().header("X-User", "nobody").post(otherApp(AppServers.UNREACHABLE, "/api/posts"));
                    assertThat(((ContainerProcess) app).wholeLog())
                            .containsPattern("Backend (failed|too slow)[^\\n]* for rule 'posts'[^\\n]*per on-backend-failure");
                });
        assertThat(((ContainerProcess) app).wholeLog()).contains("Sluice started without its backend");
    }

    /** Netty's DNS resolver (Redisson's default) binds a UDP socket on the wildcard address per event loop. */
    @Test
    void theServerHoldsNoUdpSocketOnAWildcardAddress() throws IOException {
        Set<String> inodes = new HashSet<>();
        ProcessHandle root = ((ContainerProcess) app).handle();
        List<ProcessHandle> tree = Stream.concat(Stream.of(root), root.descendants()).toList();
        for (ProcessHandle p : tree) {
            Path fds = Path.of("/proc", Long.toString(p.pid()), "fd");
            if (!Files.isDirectory(fds)) continue;
            try (Stream<Path> s = Files.list(fds)) {
                s.forEach(fd -> {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) inodes.add(target.substring(8, target.length() - 1));
                    } catch (IOException e) {
                        // closed meanwhile
                    }
                });
            }
        }
        List<String> wildcard = new ArrayList<>();
        for (String table : List.of("udp", "udp6")) {
            Path file = Path.of("/proc", Long.toString(root.pid()), "net", table);
            if (!Files.exists(file)) continue;
            for (String line : Files.readAllLines(file).stream().skip(1).toList()) {
                String[] f = line.trim().split("\\s+");
                String local = f[1];
                boolean anyAddress = local.substring(0, local.indexOf(':')).chars().allMatch(c -> c == '0');
                if (anyAddress && inodes.contains(f[9])) wildcard.add(table + " " + local);
            }
        }
        System.out.printf("%s: UDP sockets on a wildcard address: %s%n", getClass().getSimpleName(), wildcard);
        assertThat(wildcard).isEmpty();
    }
}
