package io.sluice.redisson;

import io.sluice.spi.Algorithm;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-back of a prefetch whose answer Sluice never got, in either order against the prefetch itself in Redis
 * (the freeze of {@code StrandedPrefetchTest} decides the order by chance): after it, whatever the order and however
 * often it is sent, the key has its limit less the request's own permit.
 */
class GivenUpPrefetchTest {
    private static final Duration HOLD = Duration.ofSeconds(1);
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();
    /** A minute into an hour: the window counters' hour does not end within the test. */
    private final MutableClock clock = new MutableClock(Math.floorDiv(System.currentTimeMillis(), 3_600_000L) * 3_600_000L + 60_000);

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_LOG", "TOKEN_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW"})
    void theHandBackFirstMakesTheLatePrefetchTakeNothing(Algorithm algorithm) {
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
        RateRequest r = RateRequest.of(algorithm, "given-up-" + UUID.randomUUID(), 100, Duration.ofHours(1));
        try {
            backend.giveUp(r, 50, HOLD, "late", clock.millis()).toCompletableFuture().join();
            backend.giveUp(r, 50, HOLD, "late", clock.millis()).toCompletableFuture().join();
            Prefetch p = backend.tryConsumeAndPrefetch(r, 50, HOLD, "late").toCompletableFuture().join();
            assertThat(p.outcome().allowed()).as("the request itself").isTrue();
            assertThat(p.taken()).as("taken by the late prefetch").isZero();
            assertThat(admitted(backend, r, 120)).isEqualTo(99);
        } finally {
            backend.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_LOG", "TOKEN_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW"})
    void theHandBackAfterTheLatePrefetchReturnsAllItTookOnce(Algorithm algorithm) {
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
        RateRequest r = RateRequest.of(algorithm, "given-up-" + UUID.randomUUID(), 100, Duration.ofHours(1));
        try {
            long sentAt = clock.millis();
            Prefetch p = backend.tryConsumeAndPrefetch(r, 50, HOLD, "late").toCompletableFuture().join();
            assertThat(p.taken()).isEqualTo(50);
            clock.advance(Duration.ofMillis(300));
            backend.giveUp(r, 50, HOLD, "late", sentAt).toCompletableFuture().join();
            backend.giveUp(r, 50, HOLD, "late", sentAt).toCompletableFuture().join();
            assertThat(admitted(backend, r, 120)).isEqualTo(99);
        } finally {
            backend.close();
        }
    }

    private static int admitted(RedissonBackend backend, RateRequest r, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            if (backend.tryConsume(r).toCompletableFuture().join().allowed()) admitted++;
        }
        return admitted;
    }
}
