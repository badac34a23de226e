package io.sluice.redisson;

import io.sluice.internal.Elastic;
import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Algorithm;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Elastic throttling's orchestration over the backend primitives, on both backends and every algorithm that
 * can hand permits back: over the limit only while the capacity rule pays, never above limit x (1 + overage),
 * and a request the capacity rule could not pay for takes nothing from its own key.
 */
class ElasticTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private static RedissonClient redisson;

    @BeforeAll
    static void connect() {
        redisson = TestRedis.client();
    }

    @AfterAll
    static void disconnect() {
        redisson.shutdown();
    }

    static Stream<Arguments> backendsAndAlgorithms() {
        List<Arguments> out = new ArrayList<>();
        for (String backend : List.of("memory", "redis")) {
            for (Algorithm a : Algorithm.values()) if (a.refundable()) out.add(Arguments.of(backend, a));
        }
        return out.stream();
    }

    private static LimiterBackend backend(String kind, MutableClock clock) {
        return kind.equals("memory") ? new InMemoryBackend(clock) : RedissonBackend.onCallerClock(redisson, clock, Duration.ofSeconds(5));
    }

    private static RateOutcome elastic(LimiterBackend b, RateRequest own, RateRequest capacity) {
        return Elastic.consume(b, own, capacity).toCompletableFuture().join();
    }

    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void overTheLimitOnlyWhileTheCapacityRulePaysAndNeverAboveTheOverage(String kind, Algorithm a) {
        MutableClock clock = new MutableClock(System.currentTimeMillis() / HOUR.toMillis() * HOUR.toMillis() + 1);
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (LimiterBackend b = backend(kind, clock)) {
            // 5 an hour per key, elastic with 100% overage; the capacity rule has 3 to spare.
            RateRequest own = RateRequest.of(a, "elastic-" + run + ":own-" + a.id(), 5, HOUR).withEffectiveLimit(10);
            RateRequest shortCapacity = RateRequest.of(Algorithm.FIXED_WINDOW, "elastic-" + run + ":capacity-short", 3, HOUR);
            List<RateOutcome> answers = new ArrayList<>();
            for (int i = 0; i < 9; i++) answers.add(elastic(b, own, shortCapacity));
            assertThat(answers).extracting(RateOutcome::allowed)
                    .containsExactly(true, true, true, true, true, true, true, true, false);
            assertThat(answers).extracting(RateOutcome::remaining).containsExactly(4L, 3L, 2L, 1L, 0L, 0L, 0L, 0L, 0L);
            assertThat(answers).extracting(RateOutcome::overLimit)
                    .containsExactly(false, false, false, false, false, true, true, true, false);
            assertThat(answers.get(8).retryAfterMillis()).isPositive();

            // A richer capacity rule: the refused ninth took nothing, so exactly 10 - 8 = 2 more fit, then the
            // key's own effective limit rejects without asking the capacity rule.
            RateRequest richCapacity = RateRequest.of(Algorithm.FIXED_WINDOW, "elastic-" + run + ":capacity-rich", 10, HOUR);
            assertThat(elastic(b, own, richCapacity).allowed()).isTrue();
            assertThat(elastic(b, own, richCapacity).allowed()).isTrue();
            assertThat(elastic(b, own, richCapacity).allowed()).isFalse();
            assertThat(b.tryConsume(richCapacity).toCompletableFuture().join().remaining()).isEqualTo(7);
        }
    }
}
