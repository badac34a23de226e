package io.sluice.redisson;

import io.sluice.Admission;
import io.sluice.ConfigException;
import io.sluice.Decision;
import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisYaml;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code sluice.redis.config}: Redisson's own YAML, passed through untouched (ACL user and password, TLS with a
 * truststore), with Sluice's per-call timeout and no-retry still applied to its scripts, a lazy start, and
 * secrets kept out of every error and log line.
 */
class RedisYamlConfigIT {
    private static final String SECRET = "s3cr3t-Pa55";

    private static Sluice sluice(String yaml, String backendTimeout) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.config", RedisYaml.file(yaml));
        p.put("sluice.key-prefix", "yaml" + UUID.randomUUID().toString().substring(0, 8));
        p.put("sluice.backend-timeout", backendTimeout);
        p.put("sluice.await-backend", "0s");
        p.put("sluice.on-backend-failure", "deny");
        p.put("sluice.rules.r.rate", "3/1h");
        return Sluice.fromProperties(p);
    }

    private static Decision decide(Sluice sluice) {
        return decide(sluice, "k");
    }

    private static Decision decide(Sluice sluice, String key) {
        Rule rule = sluice.rules().get("r").orElseThrow();
        try (Admission a = sluice.admit(List.of(rule), r -> key).toCompletableFuture().join()) {
            return a.decisions().get(0);
        }
    }

    /**
     * The first connection (a TLS handshake, an AUTH) is made in the background and can outlast a decision's
     * deadline on a loaded machine; wait for it on a key of its own so the checks on "k" start from zero.
     */
    private static void awaitConnected(Sluice sluice) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> decide(sluice, "connected?").outcome() == Decision.Outcome.DECIDED);
    }

    @Test
    void anAclUserAndPasswordPassThrough() {
        try (RedisProcess redis = RedisProcess.start("user default off",
                "user sluice on >" + SECRET + " ~* &* +@all")) {
            // Redisson 4 takes credentials at the top level (inside singleServerConfig they still work, deprecated).
            String yaml = "username: \"sluice\"\npassword: \"" + SECRET + "\"\nsingleServerConfig:\n  address: \"" + redis.address() + "\"\n";
            try (Sluice sluice = sluice(yaml, "2s")) {
                awaitConnected(sluice);
                Decision d = decide(sluice);
                assertThat(d.outcome()).isEqualTo(Decision.Outcome.DECIDED);
                assertThat(d.remaining()).isEqualTo(2);
            }
            String wrong = yaml.replace(SECRET, SECRET + "-wrong");
            String log = capturingStdErr(() -> {
                try (Sluice sluice = sluice(wrong, "500ms")) {
                    Decision d = decide(sluice);
                    assertThat(d.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
                    assertThat(d.allowed()).isFalse();
                }
            });
            assertThat(log).contains("Backend").doesNotContain(SECRET);
        }
    }

    @Test
    void tlsWithATruststoreAndAPasswordPassesThrough() throws URISyntaxException {
        Path tls = Path.of(getClass().getResource("tls/redis.crt").toURI()).getParent();
        int tlsPort = TestRedis.freePort();
        try (RedisProcess redis = RedisProcess.start("tls-port " + tlsPort,
                "tls-cert-file " + tls.resolve("redis.crt"), "tls-key-file " + tls.resolve("redis.key"),
                "tls-ca-cert-file " + tls.resolve("redis.crt"), "tls-auth-clients no", "requirepass " + SECRET)) {
            String yaml = "password: \"" + SECRET + "\"\nsingleServerConfig:\n  address: \"rediss://127.0.0.1:" + tlsPort + "\"\n"
                    + "sslTruststore: \"" + tls.resolve("truststore.p12").toUri() + "\"\nsslTruststorePassword: \"trust-pass\"\n";
            try (Sluice sluice = sluice(yaml, "2s")) {
                awaitConnected(sluice);
                assertThat(decide(sluice).outcome()).isEqualTo(Decision.Outcome.DECIDED);
                assertThat(decide(sluice).remaining()).isEqualTo(1);
            }
            // Without the truststore the self-signed certificate is refused: TLS really is verified.
            String untrusted = yaml.substring(0, yaml.indexOf("sslTruststore"));
            String log = capturingStdErr(() -> {
                try (Sluice sluice = sluice(untrusted, "1s")) {
                    assertThat(decide(sluice).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
                }
            });
            assertThat(log).doesNotContain(SECRET);
        }
    }

    @Test
    void aYamlThatDoesNotLoadIsNamedWithoutItsContent() {
        String[] broken = {
                "singleServerConfig:\n  address: \"redis://127.0.0.1:6379\"\n  password: \"" + SECRET + "\n  timeout: [",
                "singleServerConfig:\n  address: \"redis://127.0.0.1:6379\"\n  password: \"x\"\n  timeout: \"" + SECRET + "\"\n",
                "singleServerConfig:\n  address: \"redis://127.0.0.1:6379\"\n  pasword: \"" + SECRET + "\"\n",
                "sentinelServersConfig: \"" + SECRET + "\"\n"};
        for (String yaml : broken) {
            String location = RedisYaml.file(yaml);
            assertThatThrownBy(() -> sluice(yaml, "1s"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("sluice.redis.config")
                    .hasMessageContaining("Redisson YAML")
                    .satisfies(e -> assertThat(stackText(e)).doesNotContain(SECRET));
            assertThat(location).doesNotContain(SECRET);
        }
        assertThatThrownBy(() -> Sluice.fromProperties(Map.of("sluice.redis.config", "file:/no/such/redisson.yaml",
                "sluice.rules.r.rate", "1/1h")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("file:/no/such/redisson.yaml");
    }

    @Test
    void aBadOrUnreachableAddressWithCredentialsNeverShowsThePassword() {
        int nobody = TestRedis.freePort();
        String unreachable = "singleServerConfig:\n  address: \"redis://sluice:" + SECRET + "@127.0.0.1:" + nobody + "\"\n";
        String malformed = "singleServerConfig:\n  address: \"redis://sluice:" + SECRET + "@127.0.0.1:notaport\"\n";
        String clusterDown = "clusterServersConfig:\n  password: \"" + SECRET + "\"\n  nodeAddresses:\n    - \"redis://127.0.0.1:" + nobody + "\"\n";
        String sentinelDown = "sentinelServersConfig:\n  masterName: \"m\"\n  password: \"" + SECRET + "\"\n"
                + "  sentinelPassword: \"" + SECRET + "\"\n  sentinelAddresses:\n    - \"redis://127.0.0.1:" + nobody + "\"\n";
        for (String yaml : List.of(unreachable, malformed, clusterDown, sentinelDown)) {
            String log = capturingStdErr(() -> {
                long start = System.nanoTime();
                Sluice sluice;
                try {
                    sluice = sluice(yaml, "300ms");
                } catch (ConfigException e) {
                    assertThat(stackText(e)).doesNotContain(SECRET);
                    return;
                }
                try (sluice) {
                    // Lazy start: building never waits for the servers.
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
                    Decision d = decide(sluice);
                    assertThat(d.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
                    assertThat(d.allowed()).isFalse();
                }
            });
            assertThat(log).as("log of %s", yaml.lines().findFirst().orElseThrow()).doesNotContain(SECRET);
        }
        assertThatThrownBy(() -> Sluice.fromProperties(Map.of("sluice.redis.address", "redis://sluice:" + SECRET + "@127.0.0.1:notaport",
                "sluice.rules.r.rate", "1/1h")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.redis.address = \"redis://***@127.0.0.1:notaport\"")
                .satisfies(e -> assertThat(stackText(e)).doesNotContain(SECRET));
    }

    /**
     * A YAML asking for a long timeout and 5 retries: Sluice's scripts still give up at the backend timeout and
     * are sent once, and a call Redis runs after its client gave up takes nothing ({@code expiry.lua}): a paused
     * Redis counts the late decision not at all (sent once and counted, it would leave 2 entries; retried, up to 7).
     */
    @Test
    void sluiceTimeoutAndNoRetryApplyToItsScriptsWhateverTheYamlSays() {
        try (RedisProcess redis = RedisProcess.start()) {
            String yaml = "singleServerConfig:\n  address: \"" + redis.address() + "\"\n  timeout: 10000\n"
                    + "  retryAttempts: 5\n";
            try (Sluice sluice = sluice(yaml, "200ms")) {
                awaitConnected(sluice);
                assertThat(decide(sluice).remaining()).isEqualTo(2);
                redis.command("CLIENT", "PAUSE", "1500", "ALL");
                long start = System.nanoTime();
                Decision late = decide(sluice);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(late.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
                assertThat(millis).as("decision latency with Redis paused").isLessThan(200 + 1_000);
                String key = sluice.rules().settings().keyPrefix() + ":r:sliding-log:1h:" + KeyResolver.hash("k");
                // Once the pause ends the late script runs, once, past its expiry: the log keeps its 1 entry.
                await().during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                        assertThat(redis.command("ZCARD", "{" + key + "}:permits")).isEqualTo(1L));
                assertThat(decide(sluice).remaining()).isEqualTo(1);
            }
        }
    }

    private static String stackText(Throwable e) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        e.printStackTrace(new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Runs the action with System.err (where slf4j-simple logs) also copied to a buffer; returns the buffer. */
    private static String capturingStdErr(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                copy.write(b);
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                copy.write(b, off, len);
                original.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8));
        // JUL's console handler keeps the stderr it met first (another test class of this JVM may have made it):
        // what Sluice logs through JUL is read from the root logger as well, wherever the console writes.
        Logger root = Logger.getLogger("");
        StringBuilder logged = new StringBuilder();
        Handler reading = new Handler() {
            private final SimpleFormatter format = new SimpleFormatter();

            @Override
            public synchronized void publish(LogRecord r) {
                logged.append(format.format(r));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        root.addHandler(reading);
        try {
            action.run();
        } finally {
            root.removeHandler(reading);
            System.setErr(original);
        }
        synchronized (reading) {
            return copy.toString(StandardCharsets.UTF_8) + logged;
        }
    }
}
