package io.sluice.redisson;

import io.sluice.engine.rate.Elastic;
import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Algorithm;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.Refunding;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();

    static Stream<Arguments> backendsAndAlgorithms() {
        List<Arguments> out = new ArrayList<>();
        for (String backend : List.of("memory", "redis")) {
            for (Algorithm a : Algorithm.values()) if (a.refundable()) out.add(Arguments.of(backend, a));
        }
        return out.stream();
    }

    private static LimiterBackend backend(String kind, MutableClock clock) {
        return kind.equals("memory") ? new InMemoryBackend(clock) : RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
    }

    private static RateOutcome elastic(LimiterBackend b, RateRequest own, RateRequest capacity) {
        return Elastic.consume(b, (Refunding) b, own, capacity).toCompletableFuture().join();
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

    static Stream<String> backends() {
        return Stream.of("memory", "redis");
    }

    /**
     * Issue 21: {@code 4/4s}, token bucket, elastic 100%, the capacity rule used up; 8 requests a second for 12 s.
     * Within the limit the bucket refills at its nominal rate (4 at once, then one a second: 4 + 11 = 15, as a hard
     * bucket); what is over the limit comes from the overage's own bucket, and only while the capacity rule pays
     * (a rich one: another 4 + 11, each paid). Before: 27 admitted with nothing to pay for them.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void anElasticTokenBucketRefillsAtItsNominalRateAndBorrowsOnlyWhatIsPaidFor(String kind) {
        MutableClock clock = new MutableClock(System.currentTimeMillis() / HOUR.toMillis() * HOUR.toMillis() + 1);
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (LimiterBackend b = backend(kind, clock)) {
            RateRequest poor = RateRequest.of(Algorithm.FIXED_WINDOW, "elastic-" + run + ":poor", 1, HOUR);
            assertThat(b.tryConsume(poor).toCompletableFuture().join().allowed()).as("the capacity rule used up").isTrue();
            RateRequest rich = RateRequest.of(Algorithm.FIXED_WINDOW, "elastic-" + run + ":rich", 1000, HOUR);
            for (RateRequest capacity : List.of(poor, rich)) {
                RateRequest own = RateRequest.of(Algorithm.TOKEN_BUCKET, "elastic-" + run + ":own-" + (capacity == poor ? "poor" : "rich"),
                        4, Duration.ofSeconds(4)).withEffectiveLimit(8);
                int admitted = 0;
                int over = 0;
                RateOutcome firstRejection = null;
                for (int i = 0; i < 96; i++) {
                    if (i > 0) clock.advance(Duration.ofMillis(125));
                    RateOutcome o = elastic(b, own, capacity);
                    if (o.allowed()) admitted++;
                    if (o.allowed() && o.overLimit()) over++;
                    if (!o.allowed() && firstRejection == null) firstRejection = o;
                }
                System.out.println("ElasticTest token bucket on " + kind + ", capacity " + capacity.limit() + "/1h: "
                        + admitted + " admitted, " + over + " over the limit; first rejection " + firstRejection);
                if (capacity == poor) {
                    assertThat(admitted).as("as a hard bucket: 4 + 11").isEqualTo(15);
                    assertThat(over).isZero();
                    // At 500 ms, the 4 tokens taken at 0-375 ms: the next one arrives a second after the first was taken.
                    assertThat(firstRejection.resetMillis()).isEqualTo(500);
                } else {
                    assertThat(admitted).as("15 within the limit, 15 over it").isEqualTo(30);
                    assertThat(over).isEqualTo(15);
                    assertThat(b.tryConsume(rich).toCompletableFuture().join().remaining()).as("15 paid, 1 taken now").isEqualTo(984);
                }
            }
        }
    }

    /**
     * Issue 21: a leaky-bucket capacity rule lends at its pace, as it admits its own requests: the elastic rule's
     * borrowed requests get the capacity rule's slots (0, 1 s, ... 5 s away with {@code 1/1s} and {@code queue=5}),
     * and one more is rejected. Before: every borrowed request was admitted at once.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void aLeakyBucketCapacityRuleLendsAtItsPace(String kind) {
        MutableClock clock = new MutableClock(System.currentTimeMillis() / HOUR.toMillis() * HOUR.toMillis() + 1);
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (LimiterBackend b = backend(kind, clock)) {
            RateRequest own = RateRequest.of(Algorithm.FIXED_WINDOW, "elastic-" + run + ":own", 1, HOUR).withEffectiveLimit(11);
            RateRequest pace = RateRequest.of(Algorithm.LEAKY_BUCKET, "elastic-" + run + ":pace", 1, Duration.ofSeconds(1)).withQueue(5);
            List<RateOutcome> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) answers.add(elastic(b, own, pace));
            assertThat(answers).extracting(RateOutcome::allowed).containsExactly(true, true, true, true, true, true, true, false);
            assertThat(answers).extracting(RateOutcome::overLimit).containsExactly(false, true, true, true, true, true, true, false);
            assertThat(answers).extracting(RateOutcome::delayMillis).containsExactly(0L, 0L, 1000L, 2000L, 3000L, 4000L, 5000L, 0L);
        }
    }

    /**
     * Every algorithm that can lend: an elastic rule whose capacity rule has nothing to spare admits exactly what the
     * same rule under hard throttling admits, request for request (8 a minute for 12 minutes on {@code 4/4m}), and never
     * a request over its limit.
     */
    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void anElasticRuleWithNothingToBorrowAdmitsExactlyAsAHardOne(String kind, Algorithm a) {
        MutableClock clock = new MutableClock(System.currentTimeMillis() / HOUR.toMillis() * HOUR.toMillis() + 1);
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (LimiterBackend b = backend(kind, clock)) {
            RateRequest poor = RateRequest.of(Algorithm.FIXED_WINDOW, "elastic-" + run + ":poor", 1, HOUR);
            assertThat(b.tryConsume(poor).toCompletableFuture().join().allowed()).isTrue();
            Duration period = Duration.ofMinutes(4);
            RateRequest hard = RateRequest.of(a, "elastic-" + run + ":hard", 4, period);
            RateRequest own = RateRequest.of(a, "elastic-" + run + ":own", 4, period).withEffectiveLimit(8);
            int hardAdmitted = 0;
            int elasticAdmitted = 0;
            for (int i = 0; i < 96; i++) {
                if (i > 0) clock.advance(Duration.ofMillis(7_500));
                boolean byHard = b.tryConsume(hard).toCompletableFuture().join().allowed();
                RateOutcome elastic = elastic(b, own, poor);
                assertThat(elastic.allowed()).as("request " + i).isEqualTo(byHard);
                assertThat(elastic.overLimit()).isFalse();
                if (byHard) hardAdmitted++;
                if (elastic.allowed()) elasticAdmitted++;
            }
            System.out.println("ElasticTest " + a.id() + " on " + kind + ": hard " + hardAdmitted + ", elastic " + elasticAdmitted);
        }
    }
}
