package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.TestCertificates;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redis with an ACL user confined to Sluice's keys and channel, and Redis over TLS with a CA made at test time, both
 * configured through {@code sluice.redis.config} (Redisson's YAML): limits are exact, and wrong credentials or an
 * untrusted certificate behave like Redis down (each rule's failure policy, the application still serves).
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class SecureRedisIT {
    @Parameter
    RedisVersion version;

    private static final String PASSWORD = "s3cret-Pa55";
    /**
     * Sluice's keys and sub-keys; the wake-up channel of waiting acquirers, which scripts also name as a key (so a
     * cluster routes it with its semaphore); and the commands Sluice's and Redisson's scripts use.
     */
    private static final String ACL_USER = "user sluice on >" + PASSWORD
            + " ~sluice:* ~{sluice:* ~redisson_sc:{sluice:* resetchannels &redisson_sc:{sluice:* -@all +@connection"
            + " +eval +evalsha +script|load +script|exists +exists +get +set +incrby +decrby +pexpire +del"
            + " +hmget +hset +hgetall +hdel +zadd +zrange +zrangebyscore +zremrangebyscore +zrem +zcard +zscore +publish"
            + " +pttl +subscribe +unsubscribe +time";

    @TempDir
    Path dir;

    private Path yaml(String body) throws Exception {
        Path file = Files.createTempFile(dir, "redisson-", ".yaml");
        Files.writeString(file, body);
        return file;
    }

    private static Sluice sluice(Path yaml) {
        return Sluice.fromProperties(Map.of("sluice.redis.config", "file:" + yaml,
                "sluice.backend-timeout", "1s",
                "sluice.await-backend", "0s",
                "sluice.rules.r.rate", "3/1m",
                "sluice.rules.closed.rate", "3/1m",
                "sluice.rules.closed.on-backend-failure", "deny",
                "sluice.rules.c.concurrency", "1",
                "sluice.rules.w.concurrency", "1",
                "sluice.rules.w.wait", "5s"));
    }

    private static Admission admit(Sluice sluice, String rule, String key) {
        return Probe.admit(sluice, rule, key);
    }

    /** Rate, concurrency, a waiting acquire woken by a release, and the clock-skew measurement: all through Redis. */
    private static void worksExactly(Sluice sluice) {
        await().atMost(Duration.ofSeconds(20)).until(() ->
                admit(sluice, "r", "warm-up").decisions().get(0).outcome() == Decision.Outcome.DECIDED);
        for (int i = 0; i < 4; i++) {
            Decision d = admit(sluice, "r", "alice").decisions().get(0);
            assertThat(d.outcome()).isEqualTo(Decision.Outcome.DECIDED);
            assertThat(d.allowed()).isEqualTo(i < 3);
        }
        Admission held = admit(sluice, "c", "alice");
        assertThat(held.allowed()).isTrue();
        assertThat(admit(sluice, "c", "alice").allowed()).isFalse();
        held.close();
        Rule c = sluice.rules().get("c").orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> sluice.availablePermits(c, "alice").toCompletableFuture().join() == 1);

        Admission first = admit(sluice, "w", "bob");
        assertThat(first.allowed()).isTrue();
        Rule w = sluice.rules().get("w").orElseThrow();
        CompletableFuture<Admission> waiting = sluice.admit(List.of(w), KeySource.fixed("bob")).toCompletableFuture();
        first.close();
        Admission second = waiting.join();
        assertThat(second.allowed()).isTrue();
        assertThat(second.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED);
        second.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> sluice.clockSkew().isPresent());
    }

    /** Like Redis down: every rule's failure policy, within the deadline, no exception. */
    private static void behavesLikeRedisDown(Sluice sluice) {
        for (int i = 0; i < 10; i++) {
            long start = System.nanoTime();
            Decision open = admit(sluice, "r", "alice").decisions().get(0);
            Decision closed = admit(sluice, "closed", "alice").decisions().get(0);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(open.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(open.allowed()).isTrue();
            assertThat(closed.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(closed.allowed()).isFalse();
            assertThat(millis).isLessThan(2 * 1_000 + 500);
        }
        assertThat(sluice.stats().failedOpen()).isEqualTo(10);
        assertThat(sluice.stats().failedClosed()).isEqualTo(10);
    }

    @Test
    void anAclUserConfinedToSluicesKeysIsEnough() throws Exception {
        try (RedisProcess redis = version.start(ACL_USER)) {
            Path config = yaml("singleServerConfig:\n  address: \"" + redis.address() + "\"\n  username: \"sluice\"\n"
                    + "  password: \"" + PASSWORD + "\"\n  timeout: 1000\n  retryAttempts: 0\n");
            try (Sluice sluice = sluice(config)) {
                worksExactly(sluice);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\nACL LOG: " + redis.command("ACL", "LOG"), e);
            }
            // Nothing Sluice needs was refused. (Redisson probes a two-key script on keys test1 and test2 when it
            // connects, and copes with the refusal.)
            for (Object entry : (List<?>) redis.command("ACL", "LOG")) {
                List<?> fields = (List<?>) entry;
                Object object = fields.get(fields.indexOf("object") + 1);
                assertThat(object).as("refused by the ACL: " + entry).isIn("test1", "test2");
            }
            // The user really is confined: outside Sluice's prefix, nothing.
            Config c = new Config();
            c.useSingleServer().setAddress(redis.address()).setUsername("sluice").setPassword(PASSWORD).setRetryAttempts(0);
            RedissonClient confined = Redisson.create(c);
            try {
                assertThatThrownBy(() -> confined.getBucket("app:secret").set("x")).hasMessageContaining("NOPERM");
            } finally {
                confined.shutdown();
            }
        }
    }

    @Test
    void wrongCredentialsBehaveLikeRedisDown() throws Exception {
        try (RedisProcess redis = version.start(ACL_USER)) {
            Path config = yaml("singleServerConfig:\n  address: \"" + redis.address() + "\"\n  username: \"sluice\"\n"
                    + "  password: \"wrong\"\n  timeout: 1000\n  retryAttempts: 0\n");
            try (Sluice sluice = sluice(config)) {
                behavesLikeRedisDown(sluice);
            }
        }
    }

    @Test
    void tlsWithATestCaThroughRedissonsYaml() throws Exception {
        TestCertificates certs = TestCertificates.create(dir);
        int tlsPort = TestRedis.freePort();
        try (RedisProcess redis = version.start("tls-port " + tlsPort, "tls-cert-file " + certs.serverCertPem,
                "tls-key-file " + certs.serverKeyPem, "tls-ca-cert-file " + certs.caPem, "tls-auth-clients no")) {
            Path trusted = yaml("singleServerConfig:\n  address: \"rediss://127.0.0.1:" + tlsPort + "\"\n"
                    + "  sslTruststore: \"file:" + certs.trustStore + "\"\n  sslTruststorePassword: \"" + TestCertificates.PASSWORD
                    + "\"\n  timeout: 1000\n  retryAttempts: 0\n");
            try (Sluice sluice = sluice(trusted)) {
                worksExactly(sluice);
            }
            // Without the CA in its trust store, the client refuses the server: like Redis down.
            Path untrusted = yaml("singleServerConfig:\n  address: \"rediss://127.0.0.1:" + tlsPort + "\"\n"
                    + "  timeout: 1000\n  retryAttempts: 0\n");
            try (Sluice sluice = sluice(untrusted)) {
                behavesLikeRedisDown(sluice);
            }
        }
    }
}
