package io.sluice.redisson;

import io.sluice.key.KeyResolver;
import io.sluice.rule.Rate;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.Resp;
import io.sluice.testing.TestRedis;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static io.sluice.spi.Algorithm.LEAKY_BUCKET;
import static io.sluice.spi.Algorithm.SLIDING_LOG;
import static io.sluice.spi.Algorithm.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The algorithms as production runs them: on Redis {@code TIME}, whatever the callers' clocks say. Windows here
 * are a day long (an hour for the buckets), so the test's own milliseconds cannot cross one; a test that finds
 * Redis crossed a day boundary while it ran is skipped, not failed.
 */
class RedisTimeTest {
    private static final Duration DAY = Duration.ofDays(1);
    private static final Duration HOUR = Duration.ofHours(1);
    /** The bound: all keys of one rule and key, for the algorithms on Redis TIME. */
    private static final long MAX_BYTES_PER_KEY = 200;
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();
    private static int port;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void findPort() {
        port = URI.create(TestRedis.address()).getPort();
    }

    private static RedissonBackend backend(Clock clock) {
        return new RedissonBackend(redisson.client(), false, clock, Duration.ofSeconds(5));
    }

    private static RateOutcome consume(RedissonBackend b, RateRequest r) {
        return b.tryConsume(r).toCompletableFuture().join();
    }

    private static long redisMillis() {
        try (Resp resp = Resp.connect(port, Duration.ofSeconds(10))) {
            List<?> t = (List<?>) resp.call("TIME");
            return Long.parseLong((String) t.get(0)) * 1000 + Long.parseLong((String) t.get(1)) / 1000;
        }
    }

    private RateRequest request(Algorithm a, String name, long limit) {
        Duration period = a == TOKEN_BUCKET || a == LEAKY_BUCKET ? HOUR : DAY;
        return RateRequest.of(a, "time-" + run + ":" + name + "-" + a.id(), limit, period);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "SLIDING_LOG", mode = EnumSource.Mode.EXCLUDE)
    void onRedisTimeEachAlgorithmAdmitsItsCapacityAndNamesTheNextPermit(Algorithm a) {
        RedissonBackend b = backend(Clock.systemUTC());
        long before = redisMillis();
        RateRequest r = request(a, "capacity", 20).withQueue(a == LEAKY_BUCKET ? 4 : 0);
        long admit = a == LEAKY_BUCKET ? 5 : 20;
        List<RateOutcome> admitted = new ArrayList<>();
        for (int i = 0; i < admit; i++) admitted.add(consume(b, r));
        RateOutcome rejected = consume(b, r);
        assumeTrue(sameWindow(before, redisMillis()), "Redis crossed a window boundary during the test");
        assertThat(admitted).allMatch(RateOutcome::allowed);
        assertThat(rejected.allowed()).isFalse();
        long interval = HOUR.toMillis() / 20;
        switch (a) {
            case TOKEN_BUCKET -> {
                assertThat(admitted).extracting(RateOutcome::remaining).containsExactly(
                        19L, 18L, 17L, 16L, 15L, 14L, 13L, 12L, 11L, 10L, 9L, 8L, 7L, 6L, 5L, 4L, 3L, 2L, 1L, 0L);
                assertThat(rejected.retryAfterMillis()).isBetween(interval - 5_000, interval);
            }
            case LEAKY_BUCKET -> {
                for (int i = 0; i < admit; i++) {
                    assertThat(admitted.get(i).delayMillis()).as("delay of %d", i).isBetween(Math.max(0, i * interval - 5_000), i * interval);
                }
                assertThat(rejected.retryAfterMillis()).isBetween(interval - 5_000, interval);
            }
            default -> {
                assertThat(admitted.get(19).remaining()).isZero();
                long toMidnight = DAY.toMillis() - Math.floorMod(before, DAY.toMillis());
                assertThat(rejected.retryAfterMillis()).isBetween(toMidnight - 5_000, DAY.toMillis() * 2);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "SLIDING_LOG", mode = EnumSource.Mode.EXCLUDE)
    void twoCallersWhoseClocksAreTenSecondsApartEnforceOneExactLimit(Algorithm a) {
        Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-5));
        Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(5));
        RedissonBackend one = backend(behind);
        RedissonBackend other = backend(ahead);
        long before = redisMillis();
        RateRequest r = request(a, "skew", 20).withQueue(a == LEAKY_BUCKET ? 19 : 0);
        int admitted = 0;
        for (int i = 0; i < 60; i++) if (consume(i % 2 == 0 ? one : other, r).allowed()) admitted++;
        assumeTrue(sameWindow(before, redisMillis()), "Redis crossed a window boundary during the test");
        assertThat(admitted).isEqualTo(20);
    }

    /** The table: MEMORY USAGE of all keys of one rule and key, after many requests, at two limits. */
    @Test
    void everyKeyHasATtlAndTheNewAlgorithmsStayWithinTwoHundredBytesAtAnyLimit() {
        RedissonBackend b = backend(Clock.systemUTC());
        StringBuilder table = new StringBuilder("| algorithm | 10/1s | 10000/1h |\n|---|---|---|\n");
        for (Algorithm a : Algorithm.values()) {
            table.append("| ").append(a.id());
            for (Rate rate : List.of(new Rate(10, Duration.ofSeconds(1)), new Rate(10_000, HOUR))) {
                String key = RateKeys.name("sluice", "posts-" + run, a, rate.period(), KeyResolver.hash("user-42"));
                RateRequest r = new RateRequest(key, a, rate.permits(), rate.period(), 1, rate.permits(),
                        a == LEAKY_BUCKET ? rate.permits() : 0, rate.permits());
                // sliding-log: the measurement (a rejection walks its whole log, so none are sent)
                sendMany(b, r, a == SLIDING_LOG ? rate.permits() : rate.permits() + rate.permits() / 5);
                List<String> keys = a == SLIDING_LOG
                        ? List.of(key, RedissonNames.suffix(key, "value"), RedissonNames.suffix(key, "permits"))
                        : List.of(key);
                long bytes = 0;
                try (Resp resp = Resp.connect(port, Duration.ofSeconds(10))) {
                    for (String k : keys) {
                        assertThat((Long) resp.call("PTTL", k)).as("TTL of " + k).isPositive();
                        bytes += (Long) resp.call("MEMORY", "USAGE", k, "SAMPLES", "0");
                    }
                }
                table.append(" | ").append(bytes);
                if (a != SLIDING_LOG) assertThat(bytes).as(a + " at " + rate).isLessThanOrEqualTo(MAX_BYTES_PER_KEY);
            }
            table.append(" |\n");
        }
        System.out.println("Redis MEMORY USAGE per rule and key (bytes), after limit x 1.2 requests (sliding-log: limit):\n" + table);
    }

    /** Enough requests to fill the limit and be rejected a while, in bounded batches of concurrent calls. */
    private static void sendMany(RedissonBackend b, RateRequest r, long count) {
        final int batch = 64;
        for (long sent = 0; sent < count; sent += batch) {
            List<CompletableFuture<RateOutcome>> calls = new ArrayList<>();
            for (long i = sent; i < Math.min(count, sent + batch); i++) calls.add(b.tryConsume(r).toCompletableFuture());
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
        }
    }

    private static boolean sameWindow(long a, long b) {
        return Math.floorDiv(a, DAY.toMillis()) == Math.floorDiv(b, DAY.toMillis())
                && Math.floorDiv(a, HOUR.toMillis()) == Math.floorDiv(b, HOUR.toMillis());
    }
}
