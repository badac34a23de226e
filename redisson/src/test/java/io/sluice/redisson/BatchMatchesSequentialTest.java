package io.sluice.redisson;

import io.sluice.testing.Decided;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.Resp;
import io.sluice.testing.TestRedisson;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One script call deciding a batch answers exactly what one call per request, one after another at the same
 * instant, answers: for every algorithm, randomized costs and limits, over many batches with time moving between
 * them (the scripts on Redis time take the test's clock here, so both keys see the same instants).
 */
class BatchMatchesSequentialTest {
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aBatchAnswersWhatSequentialCallsAtTheSameInstantAnswer(Algorithm algorithm) {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
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
                batch.add(request(algorithm, batched, cost));
            }
            List<RateOutcome> together = backend.tryConsumeAll(batch).toCompletableFuture().join();
            List<RateOutcome> oneByOne = new ArrayList<>();
            for (RateRequest r : batch) oneByOne.add(backend.tryConsume(r.withKey(sequential)).toCompletableFuture().join());
            assertThat(Decided.of(together)).as("round %d", round).containsExactlyElementsOf(Decided.of(oneByOne));
            for (RateOutcome o : together) if (o.allowed()) admitted++; else rejected++;
            clock.advance(Duration.ofMillis(random.nextInt(1500)));
        }
        assertThat(admitted).as("both outcomes were exercised").isPositive();
        assertThat(rejected).isPositive();
    }

    /**
     * Several keys in one script call (a lane's batch), each key's requests in runs of identical ones and mixed
     * costs, some soft (an effective limit over the nominal one): each key answers what its own requests, one after
     * another, answer on a key of its own; and the call is one EVALSHA however many keys and requests it carries.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void keysDecidedTogetherAnswerWhatEachKeyAloneAnswers(Algorithm algorithm) {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        Random random = new Random(algorithm.ordinal() * 131L + 3);
        String id = UUID.randomUUID().toString();
        int admitted = 0;
        int rejected = 0;
        // A Redis of its own: its script calls are counted, and the shared one also serves what other test classes
        // left running (a call of theirs counted here made 2 of 1 in one CI run).
        try (RedisProcess own = RedisProcess.start();
             Resp redis = Resp.connect(own.port(), Duration.ofSeconds(5))) {
            RedissonClient client = TestRedisson.client(own.address());
            RedissonBackend backend = RedissonBackend.onCallerClock(client, clock, Duration.ofSeconds(5));
            try {
                // Counted from here: the backend's own first command (a PING script, on a thread of its own) is over, and the
                // first call of a script, which loads it (a second EVALSHA after NOSCRIPT), is not counted.
                backend.firstConnection().toCompletableFuture().join();
                RateRequest warmUp = RateRequest.of(algorithm, "warm-up-" + id, 20, Duration.ofSeconds(10));
                backend.tryConsumeTogether(List.of(List.of(warmUp), List.of(warmUp.withKey("warm-up-2-" + id)))).get(0).join();
                for (int round = 0; round < 40; round++) {
                    int keys = 1 + random.nextInt(6);
                    List<List<RateRequest>> together = new ArrayList<>();
                    for (int k = 0; k < keys; k++) {
                        boolean soft = k % 3 == 2;
                        List<RateRequest> requests = new ArrayList<>();
                        int runs = 1 + random.nextInt(4);
                        for (int run = 0; run < runs; run++) {
                            long cost = random.nextInt(3) == 0 ? 1 + random.nextInt(5) : 1;
                            RateRequest r = request(algorithm, "together-" + id + "-" + k, cost);
                            if (soft) r = r.withEffectiveLimit(24);
                            int length = 1 + random.nextInt(15);
                            for (int i = 0; i < length; i++) requests.add(r);
                        }
                        together.add(requests);
                    }
                    long before = evalshaCalls(redis);
                    List<List<RateOutcome>> answers = backend.tryConsumeTogether(together).stream().map(CompletableFuture::join).toList();
                    assertThat(evalshaCalls(redis) - before).as("one script call for %d keys: %s", keys, together).isEqualTo(1);
                    for (int k = 0; k < keys; k++) {
                        List<RateOutcome> alone = new ArrayList<>();
                        for (RateRequest r : together.get(k)) {
                            alone.add(backend.tryConsume(r.withKey("alone-" + id + "-" + k)).toCompletableFuture().join());
                        }
                        assertThat(Decided.of(answers.get(k))).as("round %d, key %d", round, k).containsExactlyElementsOf(Decided.of(alone));
                        for (RateOutcome o : alone) if (o.allowed()) admitted++; else rejected++;
                    }
                    clock.advance(Duration.ofMillis(random.nextInt(1500)));
                }
            } finally {
                backend.close();
                client.shutdown();
            }
        }
        assertThat(admitted).as("both outcomes were exercised").isPositive();
        assertThat(rejected).isPositive();
    }

    /** 20 per 10 s at {@code cost}; a token bucket of 12, a leaky bucket with 5 places to wait. */
    private static RateRequest request(Algorithm algorithm, String key, long cost) {
        RateRequest r = RateRequest.of(algorithm, key, 20, Duration.ofSeconds(10)).withCost(cost);
        if (algorithm == Algorithm.TOKEN_BUCKET) r = r.withBurst(12);
        if (algorithm == Algorithm.LEAKY_BUCKET) r = r.withQueue(5);
        return r;
    }

    private static long evalshaCalls(Resp redis) {
        String stats = redis.call("INFO", "commandstats").toString();
        Matcher calls = Pattern.compile("cmdstat_evalsha:calls=(\\d+)").matcher(stats);
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    /** A key another program wrote with another type fails its own decisions only, not the others in its call. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aBrokenKeyFailsAloneInItsCall(Algorithm algorithm) {
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson.client(), new MutableClock(1_700_000_000_000L), Duration.ofSeconds(5));
        String id = UUID.randomUUID().toString();
        RateRequest healthy = RateRequest.of(algorithm, "healthy-" + id, 20, Duration.ofSeconds(10));
        if (algorithm == Algorithm.LEAKY_BUCKET) healthy = healthy.withQueue(5);
        RateRequest broken = RateRequest.of(algorithm, "broken-" + id, 20, Duration.ofSeconds(10));
        // Every algorithm reads its first key as a string or a hash: a list is neither.
        redisson.client().getList(broken.key()).add("not a limiter");
        List<List<RateRequest>> together = List.of(List.of(healthy, healthy), List.of(broken), List.of(healthy));
        List<CompletableFuture<List<RateOutcome>>> answers = backend.tryConsumeTogether(together);
        List<RateOutcome> alone = new ArrayList<>();
        for (int i = 0; i < 3; i++) alone.add(backend.tryConsume(healthy.withKey("mirror-" + id)).toCompletableFuture().join());
        assertThat(Decided.of(answers.get(0).join())).containsExactlyElementsOf(Decided.of(alone.subList(0, 2)));
        assertThatThrownBy(answers.get(1)::join).hasMessageContaining("broken-" + id).hasMessageContaining("WRONGTYPE");
        assertThat(Decided.of(answers.get(2).join())).containsExactly(Decided.of(alone.get(2)));
        assertThat(alone).allMatch(RateOutcome::allowed);
    }
}
