package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.LogRecorder;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code sluice.await-backend} on a real Redis: {@code build()} (which the filter's {@code init} and the CDI
 * producer call) returns as soon as Redis is connected; with Redis down it returns after the wait, says so in
 * the log, and decisions follow {@code on-backend-failure}; {@link Sluice#connected()} turns true when Redis
 * comes up, without any request. Log lines are read where the JDK sends {@code System.Logger} by default,
 * {@code java.util.logging}.
 */
class AwaitBackendTest {
    private static final Duration AWAIT = Duration.ofMillis(1500);
    /** Start-up may overrun the wait by one connection attempt and a loaded machine's scheduling. */
    private static final Duration OVERRUN = Duration.ofSeconds(5);

    private LogRecorder log;

    @BeforeEach
    void record() {
        log = LogRecorder.on(Sluice.class.getName());
    }

    @AfterEach
    void stopRecording() {
        log.close();
    }

    @Test
    void withRedisUpStartUpReturnsConnected() {
        try (Sluice sluice = Sluice.fromProperties(Map.of(
                "sluice.redis.address", TestRedis.address(),
                "sluice.await-backend", "60s",
                "sluice.backend-timeout", "5s",
                "sluice.key-prefix", "await-up",
                "sluice.rules.r.rate", "3/1h"))) {
            assertThat(sluice.connected()).isTrue();
            assertThat(decide(sluice, "r").outcome()).isEqualTo(Decision.Outcome.DECIDED);
            assertThat(log.messages(Level.INFO)).anyMatch(m -> m.startsWith("Sluice connected to its backend after "));
            assertThat(log.messages(Level.WARNING)).isEmpty();
        }
    }

    @Test
    void withRedisDownStartUpWaitsTheAwaitThenServesByTheFailurePolicyUntilRedisComesUp() {
        int port = TestRedis.freePort();
        long started = System.nanoTime();
        try (Sluice sluice = Sluice.fromProperties(Map.of(
                "sluice.redis.address", "redis://127.0.0.1:" + port,
                "sluice.await-backend", "1500ms",
                "sluice.backend-timeout", "200ms",
                "sluice.rules.lenient.rate", "3/1h",
                "sluice.rules.strict.rate", "3/1h",
                "sluice.rules.strict.on-backend-failure", "deny"))) {
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).isBetween(AWAIT, AWAIT.plus(OVERRUN));
            assertThat(sluice.connected()).isFalse();
            assertThat(log.messages(Level.WARNING)).containsExactly("Sluice started without its backend: no connection to"
                    + " Redis within sluice.await-backend=1500ms; until it connects, each rule follows its on-backend-failure");

            Decision lenient = decide(sluice, "lenient");
            Decision strict = decide(sluice, "strict");
            assertThat(lenient.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(lenient.allowed()).isTrue();
            assertThat(strict.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(strict.allowed()).isFalse();

            try (RedisProcess redis = RedisProcess.start(port, false, List.of())) {
                // Asking is what retries the connection: a health check alone brings the engine up.
                await("connected() once Redis is up").atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50))
                        .until(sluice::connected);
                await("a decision through Redis").atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50))
                        .until(() -> decide(sluice, "strict").outcome() == Decision.Outcome.DECIDED);
            }
        }
    }

    @Test
    void withAnAwaitOfZeroStartUpNeverWaits() {
        int port = TestRedis.freePort();
        try (Sluice sluice = Sluice.fromProperties(Map.of(
                "sluice.redis.address", "redis://127.0.0.1:" + port,
                "sluice.await-backend", "0s",
                "sluice.rules.r.rate", "3/1h"))) {
            assertThat(sluice.connected()).isFalse();
            assertThat(log.records()).isEmpty();
        }
    }

    @Test
    void theInMemoryBackendIsAlwaysConnected() {
        try (Sluice sluice = Sluice.builder().properties(Map.of("sluice.await-backend", "1h", "sluice.rules.r.rate", "3/1h"))
                .inMemory().build()) {
            assertThat(sluice.connected()).isTrue();
            assertThat(log.records()).isEmpty();
        }
    }

    private static Decision decide(Sluice sluice, String ruleName) {
        Rule rule = sluice.rules().get(ruleName).orElseThrow();
        try (Admission a = sluice.admit(List.of(rule), k -> "someone").toCompletableFuture().join()) {
            return a.decisions().get(0);
        }
    }
}
