package io.sluice.redisson;

import io.sluice.testing.Decided;
import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prefetch on a real Redis and in the in-memory backend (whose token bucket and window counters are the reference
 * models, and whose log is the sliding log's twin), driven with the same random decisions, prefetches, hand-backs of
 * some of a prefetch's unused permits, and times (across windows too): every answer must be identical (the request's
 * decision, remaining, reset and retry-after, the permits taken ahead, what was left after them, how long the stock
 * may be handed out), and so must every later answer, which sees what the prefetches' entries and hand-backs did to
 * the state. The seed is printed; rerun one with {@code -Dsluice.seed=N}.
 */
class PrefetchMatchesModelTest {
    private static final int SEQUENCES = 30;
    private static final int STEPS = 80;
    /** rate.lua's keys live a period of real time while this test's time runs ahead: periods long enough for no stall to matter. */
    private static final long[] PERIODS_MS = {60_000, 600_000, 3_600_000};
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_LOG", "TOKEN_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW"})
    void redisAndTheModelAgreeOnEveryAnswer(Algorithm algorithm) {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        System.out.println("PrefetchMatchesModelTest " + algorithm + " seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        MutableClock clock = MutableClock.startingNow();
        RedissonBackend redis = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
        InMemoryBackend memory = new InMemoryBackend(clock);
        int prefetches = 0;
        int taken = 0;
        int returned = 0;
        int decisions = 0;
        int usesGivenBack = 0;
        int forgotten = 0;
        int creditedLess = 0;
        try {
            for (int s = 0; s < SEQUENCES; s++) {
                long limit = 5 + random.nextInt(random.nextBoolean() ? 20 : 150);
                Duration period = Duration.ofMillis(PERIODS_MS[random.nextInt(PERIODS_MS.length)]);
                RateRequest r = RateRequest.of(algorithm, "prefetch-model-" + UUID.randomUUID(), limit, period);
                if (algorithm == Algorithm.TOKEN_BUCKET && random.nextBoolean()) r = r.withBurst(1 + random.nextInt((int) limit * 2));
                // What each side took and has not handed back yet, in the same order.
                List<Prefetch> fromRedis = new ArrayList<>();
                List<Prefetch> fromMemory = new ArrayList<>();
                // The receipts of stocks no longer out (handed back, or forgotten used up), in the same order.
                List<Prefetch.Receipt> goneA = new ArrayList<>();
                List<Prefetch.Receipt> goneB = new ArrayList<>();
                for (int step = 0; step < STEPS; step++) {
                    clock.advance(Duration.ofMillis(randomStep(random, r)));
                    long cost = random.nextInt(4) == 0 ? 1 + random.nextInt((int) Math.min(limit, 6)) : 1;
                    RateRequest call = r.withCost(cost);
                    String where = algorithm + " seed=" + seed + " sequence " + s + " step " + step + " " + call + " at " + clock.millis();
                    int pick = random.nextInt(10);
                    if (pick < 4) {
                        long ahead = 1 + random.nextInt(random.nextBoolean() ? 4 : 40);
                        Duration hold = Duration.ofMillis(1 + random.nextLong(period.toMillis() / 10));
                        // With a request, or alone (a refill): then only what was taken and left is compared.
                        boolean alone = random.nextInt(3) == 0;
                        // A bucket's or a window's: at times forgetting stocks used up (now, or handed back before).
                        List<Prefetch.Receipt> usedUpA = new ArrayList<>();
                        List<Prefetch.Receipt> usedUpB = new ArrayList<>();
                        if (algorithm != Algorithm.SLIDING_LOG && random.nextInt(3) == 0) {
                            for (int n = random.nextInt(3); n > 0 && !fromRedis.isEmpty(); n--) {
                                int which = random.nextInt(fromRedis.size());
                                usedUpA.add(fromRedis.remove(which).receipt());
                                usedUpB.add(fromMemory.remove(which).receipt());
                            }
                            if (!goneA.isEmpty() && random.nextBoolean()) {
                                int which = random.nextInt(goneA.size());
                                usedUpA.add(goneA.get(which));
                                usedUpB.add(goneB.get(which));
                            }
                            forgotten += usedUpA.size();
                        }
                        Prefetch a = (alone ? redis.prefetch(r, ahead, hold, usedUpA) : redis.tryConsumeAndPrefetch(call, ahead, hold, usedUpA))
                                .toCompletableFuture().join();
                        Prefetch b = (alone ? memory.prefetch(r, ahead, hold, usedUpB) : memory.tryConsumeAndPrefetch(call, ahead, hold, usedUpB))
                                .toCompletableFuture().join();
                        goneA.addAll(usedUpA);
                        goneB.addAll(usedUpB);
                        if (alone) assertThat(a.outcome().allowed()).as(where).isEqualTo(a.taken() > 0).isEqualTo(b.outcome().allowed());
                        else assertThat(Decided.of(a.outcome())).as(where).isEqualTo(Decided.of(b.outcome()));
                        assertThat(a.taken()).as("taken ahead: " + where).isEqualTo(b.taken());
                        assertThat(a.remaining()).as("left after: " + where).isEqualTo(b.remaining());
                        assertThat(a.endsInMillis()).as("the stock's end: " + where).isEqualTo(b.endsInMillis());
                        assertThat(a.request()).isEqualTo(b.request()).isEqualTo(call.withCost(1));
                        if (a.taken() > 0) {
                            fromRedis.add(a);
                            fromMemory.add(b);
                        }
                        prefetches++;
                        taken += (int) a.taken();
                    } else if (pick < 6 && !fromRedis.isEmpty()) {
                        int which = random.nextInt(fromRedis.size());
                        Prefetch a = fromRedis.remove(which);
                        Prefetch b = fromMemory.remove(which);
                        // Half the time telling when the used ones were used, as a server does (a log logs them again then).
                        boolean told = random.nextBoolean();
                        long unused = told ? random.nextLong(a.taken() + 1) : 1 + random.nextLong(a.taken());
                        List<PrefetchUse> used = told ? randomUses(random, a.taken() - unused, period) : List.of();
                        long creditedA = redis.returnPrefetched(a, unused, used).toCompletableFuture().join();
                        long creditedB = memory.returnPrefetched(b, unused, used).toCompletableFuture().join();
                        // What the key's remaining rose by: a window counter's stock whose window turned, less.
                        assertThat(creditedA).as("credited: " + where).isEqualTo(creditedB).isBetween(0L, unused);
                        if (creditedA < unused) creditedLess++;
                        goneA.add(a.receipt());
                        goneB.add(b.receipt());
                        returned += (int) unused;
                        if (algorithm == Algorithm.SLIDING_LOG) usesGivenBack += giveBackUses(random, a, b, used, redis, memory);
                    } else {
                        RateOutcome a = redis.tryConsume(call).toCompletableFuture().join();
                        RateOutcome b = memory.tryConsume(call).toCompletableFuture().join();
                        assertThat(Decided.of(a)).as(where).isEqualTo(Decided.of(b));
                        decisions++;
                    }
                }
            }
        } finally {
            redis.close();
            memory.close();
        }
        System.out.println("PrefetchMatchesModelTest " + algorithm + ": " + prefetches + " prefetches (" + taken + " permits taken ahead, "
                + returned + " handed back, " + creditedLess + " credited less, " + forgotten + " used-up stocks forgotten) and " + decisions
                + " decisions identical");
        assertThat(taken).as("permits taken ahead").isGreaterThan(SEQUENCES * 10);
        assertThat(returned).as("permits handed back").isGreaterThan(SEQUENCES * 3);
        if (algorithm == Algorithm.SLIDING_LOG) assertThat(usesGivenBack).as("uses given back").isGreaterThan(SEQUENCES);
        if (algorithm != Algorithm.SLIDING_LOG) assertThat(forgotten).as("used-up stocks forgotten").isGreaterThan(SEQUENCES);
        if (algorithm == Algorithm.FIXED_WINDOW || algorithm == Algorithm.SLIDING_WINDOW) {
            assertThat(creditedLess).as("hand-backs crediting less than they returned (their window turned)").isPositive();
        }
    }

    /**
     * Half the time, gives back some permits of a log stock's uses just handed back, by the use
     * ({@code Prefetch.Receipt.use}), as a server does for a stock-paid request that ends after its stock went back:
     * at a time a use was told, between two (a use merged into the next), or past them all, and of a cost up to 2 (more
     * than a use holds, at times). The later answers compare what each left.
     *
     * @return the give-backs sent
     */
    private static int giveBackUses(SplittableRandom random, Prefetch a, Prefetch b, List<PrefetchUse> used,
                                    RedissonBackend redis, InMemoryBackend memory) {
        if (used.isEmpty() || random.nextBoolean()) return 0;
        int sent = 0;
        for (int k = random.nextInt(3); k >= 0; k--) {
            PrefetchUse u = used.get(random.nextInt(used.size()));
            long before = random.nextBoolean() ? u.beforeEndMillis() : u.beforeEndMillis() + random.nextLong(3);
            RateRequest permit = a.request().withCost(1 + random.nextInt(2));
            redis.refund(permit, a.receipt().use(before)).toCompletableFuture().join();
            memory.refund(permit, b.receipt().use(before)).toCompletableFuture().join();
            sent++;
        }
        return sent;
    }

    /** {@code permits} used in one to three uses, each up to a tenth of the period (the longest hold) before the hold's end. */
    private static List<PrefetchUse> randomUses(SplittableRandom random, long permits, Duration period) {
        List<PrefetchUse> uses = new ArrayList<>();
        long left = permits;
        while (left > 0) {
            long n = uses.size() == 2 ? left : 1 + random.nextLong(left);
            uses.add(new PrefetchUse(n, random.nextLong(period.toMillis() / 10 + 1)));
            left -= n;
        }
        return uses;
    }

    /**
     * 100 a second, burst 10: a request and a stock of 9 empty the bucket; 95 ms later, still within the hold, the
     * bucket has refilled only to its burst less the 9 lent (1 token), not to 9.5 beside the stock: the bucket and the
     * stock together never hold more than the burst. Both backends agree, token for token, and after the stock's
     * hand-back the bucket has its unused tokens back.
     */
    @org.junit.jupiter.api.Test
    void aBurstWithinTheHoldFindsTheStockStillOutOfTheBucket() {
        MutableClock clock = MutableClock.startingNow();
        RedissonBackend redis = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
        InMemoryBackend memory = new InMemoryBackend(clock);
        RateRequest r = RateRequest.of(Algorithm.TOKEN_BUCKET, "prefetch-burst-" + UUID.randomUUID(), 100, Duration.ofSeconds(1)).withBurst(10);
        Duration hold = Duration.ofMillis(100);
        try {
            Prefetch a = redis.tryConsumeAndPrefetch(r, 9, hold, List.of()).toCompletableFuture().join();
            Prefetch b = memory.tryConsumeAndPrefetch(r, 9, hold, List.of()).toCompletableFuture().join();
            assertThat(a.taken()).isEqualTo(b.taken()).isEqualTo(9);
            clock.advance(Duration.ofMillis(95));
            int[] admitted = new int[2];
            for (int i = 0; i < 38; i++) {
                RateOutcome x = redis.tryConsume(r).toCompletableFuture().join();
                RateOutcome y = memory.tryConsume(r).toCompletableFuture().join();
                assertThat(Decided.of(x)).as("request %d", i).isEqualTo(Decided.of(y));
                if (x.allowed()) admitted[0]++;
                if (y.allowed()) admitted[1]++;
            }
            assertThat(admitted[0]).as("admitted beside a stock of 9 within the hold (burst 10)").isEqualTo(1);
            // 6 of the stock were used; the 3 others come back (with the room of all 9).
            redis.returnPrefetched(a, 3, List.of()).toCompletableFuture().join();
            memory.returnPrefetched(b, 3, List.of()).toCompletableFuture().join();
            for (int i = 0; i < 10; i++) {
                RateOutcome x = redis.tryConsume(r).toCompletableFuture().join();
                assertThat(Decided.of(x)).as("after the hand-back, request %d", i).isEqualTo(Decided.of(memory.tryConsume(r).toCompletableFuture().join()));
                if (x.allowed()) admitted[0]++;
            }
            assertThat(admitted[0]).as("1 beside the stock, then the 3 handed back").isEqualTo(1 + 3);
        } finally {
            redis.close();
            memory.close();
        }
    }

    /** Mostly bursts well inside a hold, some across holds, some across the period. */
    private static long randomStep(SplittableRandom random, RateRequest r) {
        long period = r.period().toMillis();
        return switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1, 2 -> random.nextLong(period / 100 + 1);
            case 3 -> random.nextLong(period / 10 + 1);
            case 4 -> random.nextLong(period / 2 + 1);
            default -> random.nextLong(period + period / 5);
        };
    }
}
