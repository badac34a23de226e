package io.sluice.redisson;

import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.testing.RedisProcess;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * An acquire with {@code wait} that the engine gives up on (its deadline passed) while its first try is still in
 * Redis, frozen here, is over once that try answers: it does not go on waiting under the permit id given up on
 * (issue 21, seed 1527577941). Such a waiter polled for its whole wait, kept from a permit only by the release's
 * tombstone; once Redis lost its state (a restart), it took a permit that no request held, renewed or released.
 */
class GivenUpFirstTryTest {
    /** Longer than the test takes: a freeze here lasts as long as one release call takes to send. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);
    /** Longer than {@link #ANSWERED_WITHIN}: a waiter left behind would still be waiting when the test looks. */
    private static final Duration WAIT = Duration.ofMinutes(1);
    /** Room for a loaded machine to run the thawed calls and answer. */
    private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(20);
    private static final Duration LEASE = Duration.ofMinutes(5);

    @Test
    void anAcquireGivenUpOnDuringItsFirstTryDoesNotWaitAfterIt() {
        try (RedisProcess redis = RedisProcess.start()) {
            Config config = new Config();
            config.useSingleServer().setAddress(redis.address());
            RedissonClient client = Redisson.create(config);
            RedissonBackend backend = new RedissonBackend(client, false, Clock.systemUTC(), CLIENT_TIMEOUT);
            try {
                String key = "given-up-first-try";
                LeaseOutcome held = backend.tryAcquire(new LeaseRequest(key, 1, LEASE, Duration.ZERO)).toCompletableFuture().join();
                assertThat(held.acquired()).as("the one permit, held").isTrue();

                LeaseRequest waiting = new LeaseRequest(key, 1, LEASE, WAIT);
                CompletableFuture<LeaseOutcome> acquire;
                redis.freeze();
                try {
                    acquire = backend.tryAcquire(waiting).toCompletableFuture();
                    // The engine's deadline passes first: it releases the id, which leaves a tombstone in Redis.
                    backend.release(waiting, waiting.permitId());
                } finally {
                    redis.thaw();
                }

                Throwable answer = catchThrowable(() -> acquire.get(ANSWERED_WITHIN.toMillis(), TimeUnit.MILLISECONDS));
                assertThat(answer).as("the acquire given up on, once its first try answers").isNotNull()
                        .isNotInstanceOf(TimeoutException.class);
                assertThat(rootOf(answer)).isInstanceOf(CancellationException.class);
                assertThat(backend.waiting()).as("waiters left on this server").isZero();
            } finally {
                backend.close();
                client.shutdown();
            }
        }
    }

    private static Throwable rootOf(Throwable t) {
        while (t.getCause() != null) t = t.getCause();
        return t;
    }
}
