package io.sluice.redisson;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.RedisProcess;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A decision call that Redis runs only after the client gave up on it takes nothing (issue 21; IT seed 476439892: a
 * sliding-window permit of a request made during a freeze stayed taken). Redis is frozen (SIGSTOP) while a call is
 * sent; the client's timeout fails it, no answer ever comes that {@code Refunds.undoIfDenied} could undo, and a window's
 * counter has no id to undo it by; once Redis goes on, it runs the call it read, which finds its expiry passed.
 *
 * <p>Before the fix the key had 2 permits left of 5 after the thaw, where 3 are: the late call's stayed taken.
 */
@Timeout(120)
class LateDecisionTest {
    private static final int LIMIT = 5;
    private static final int BEFORE = 2;
    /**
     * The timeout the decision calls are sent with: they expire {@link CallExpiry#LEAD} before it. Long enough that a
     * call on a loaded machine is never late, short enough that the client gives up on the frozen one soon.
     */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);
    /** Room for a loaded machine: the sample of Redis's time, the late call run once Redis goes on. */
    private static final Duration SETTLE = Duration.ofSeconds(20);

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_WINDOW", "FIXED_WINDOW", "TOKEN_BUCKET", "SLIDING_LOG"})
    void aCallRunAfterItsClientGaveUpTakesNothing(Algorithm algorithm) {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = client(redis);
            RedissonBackend backend = new RedissonBackend(client, false, Clock.systemUTC(), CLIENT_TIMEOUT);
            try {
                // A day: nothing refills or slides out while the test runs.
                RateRequest r = RateRequest.of(algorithm, "late-" + algorithm, LIMIT, Duration.ofDays(1));
                await("a sample of Redis's time").atMost(SETTLE).until(() -> {
                    backend.connected();
                    return backend.knowsRedisTime();
                });
                for (int i = 0; i < BEFORE; i++) assertThat(allowed(backend.tryConsume(r))).isTrue();

                redis.freeze();
                CompletableFuture<?> late;
                try {
                    late = backend.tryConsume(r).toCompletableFuture();
                    assertThatThrownBy(late::join).as("the client gives up on the frozen call")
                            .isInstanceOf(CompletionException.class);
                } finally {
                    redis.thaw();
                }
                // Redis runs the call it read before the freeze ended, and refuses it as late; without the expiry
                // it takes a permit and says nothing, and the counts below show it.
                boolean refused = refusedAsLate(redis);
                List<Boolean> after = new ArrayList<>();
                for (int i = 0; i < LIMIT; i++) after.add(allowed(backend.tryConsume(r)));
                assertThat(after.stream().filter(a -> a).count()).as("admitted of %d after the thaw", LIMIT)
                        .isEqualTo(LIMIT - BEFORE);
                assertThat(refused).as("the late call refused by Redis").isTrue();
            } finally {
                backend.close();
                client.shutdown();
            }
        }
    }

    /** A call answered in time, past the client's timeout less its lead, is still Redis's decision. */
    @Test
    void callsInTimeGoWithAnExpiryAndDecide() {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = client(redis);
            RedissonBackend backend = new RedissonBackend(client, false, Clock.systemUTC(), CLIENT_TIMEOUT);
            try {
                RateRequest r = RateRequest.of(Algorithm.SLIDING_WINDOW, "in-time", LIMIT, Duration.ofDays(1));
                await("a sample of Redis's time").atMost(SETTLE).until(() -> {
                    backend.connected();
                    return backend.knowsRedisTime();
                });
                int admitted = 0;
                for (int i = 0; i < LIMIT + 3; i++) if (allowed(backend.tryConsume(r))) admitted++;
                assertThat(admitted).isEqualTo(LIMIT);
                assertThat(String.valueOf(redis.command("INFO", "errorstats"))).doesNotContain("SLUICE_LATE");
                assertThat(backend.knowsRedisTime()).as("no refusal made the estimate suspect").isTrue();
            } finally {
                backend.close();
                client.shutdown();
            }
        }
    }

    /** Whether Redis answered a call with the late call's error, once, within {@link #SETTLE}. */
    private static boolean refusedAsLate(RedisProcess redis) {
        try {
            await("the late call run").atMost(SETTLE).until(() ->
                    String.valueOf(redis.command("INFO", "errorstats")).contains("errorstat_SLUICE_LATE:count=1"));
            return true;
        } catch (ConditionTimeoutException notRefused) {
            return false;
        }
    }

    /** A client of Redisson's defaults (a 3 s timeout, retries): the backend's own per-call settings apply. */
    private static RedissonClient client(RedisProcess redis) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address());
        return Redisson.create(config);
    }

    private static boolean allowed(CompletionStage<RateOutcome> outcome) {
        return outcome.toCompletableFuture().join().allowed();
    }
}
