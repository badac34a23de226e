package io.sluice.redisson;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One script call deciding a batch answers exactly what one call per request, one after another at the same
 * instant, answers: for every algorithm, randomized costs and limits, over many batches with time moving between
 * them (the scripts on Redis time take the test's clock here, so both keys see the same instants).
 */
class BatchMatchesSequentialTest {
    private static RedissonClient redisson;

    @BeforeAll
    static void connect() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestRedis.address());
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void disconnect() {
        redisson.shutdown();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aBatchAnswersWhatSequentialCallsAtTheSameInstantAnswer(Algorithm algorithm) {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson, clock, Duration.ofSeconds(5));
        Random random = new Random(algorithm.ordinal() * 31L + 7);
        String id = UUID.randomUUID().toString();
        String batched = "batch-" + id;
        String sequential = "seq-" + id;
        int admitted = 0;
        int rejected = 0;
        for (int round = 0; round < 60; round++) {
            int n = 1 + random.nextInt(40);
            List<RateRequest> batch = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long cost = random.nextInt(10) < 8 ? 1 : 1 + random.nextInt(6);
                RateRequest r = RateRequest.of(algorithm, batched, 20, Duration.ofSeconds(10)).withCost(cost);
                if (algorithm == Algorithm.TOKEN_BUCKET) r = r.withBurst(12);
                if (algorithm == Algorithm.LEAKY_BUCKET) r = r.withQueue(5);
                batch.add(r);
            }
            List<RateOutcome> together = backend.tryConsumeAll(batch).toCompletableFuture().join();
            List<RateOutcome> oneByOne = new ArrayList<>();
            for (RateRequest r : batch) oneByOne.add(backend.tryConsume(r.withKey(sequential)).toCompletableFuture().join());
            assertThat(together).as("round %d", round).containsExactlyElementsOf(oneByOne);
            for (RateOutcome o : together) if (o.allowed()) admitted++; else rejected++;
            clock.advance(Duration.ofMillis(random.nextInt(1500)));
        }
        assertThat(admitted).as("both outcomes were exercised").isPositive();
        assertThat(rejected).isPositive();
    }
}
