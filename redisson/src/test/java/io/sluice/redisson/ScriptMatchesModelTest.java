package io.sluice.redisson;

import io.sluice.testing.Decided;
import io.sluice.engine.rate.RateShield;
import io.sluice.memory.InMemoryBackend;
import io.sluice.memory.RateModel;
import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
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
 * Each algorithm's script on a real Redis and its Java reference model, driven with the same random requests,
 * costs, limit changes, refunds and (caller-supplied) times, must give identical answers: decision, remaining,
 * reset, retry-after, delay and over-limit flag. The seed is printed; rerun one with {@code -Dsluice.seed=N}.
 */
class ScriptMatchesModelTest {
    static final int SEQUENCES = 60;
    static final int STEPS = 80;
    private static final long MIN_LOG_PERIOD_MS = 60_000;
    private static final long[] PERIODS_MS = {50, 100, 250, 1000, 7000, 60_000, 3_600_000, 86_400_000};
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();

    /**
     * A refund by an entry an admitted answer named (a window counter's window, maybe one that has ended since): the
     * script and the model credit alike (a sliding window's previous window by its weight), and go on agreeing.
     */
    private static void refundByEntry(RedissonBackend backend, RateModel model, RateRequest back, Entry entry,
                                      long nowMicros, String where) {
        long credited = backend.refundCredited(back, entry).toCompletableFuture().join();
        long modelled = model.refundCredited(back, entry, nowMicros);
        assertThat(credited).as("credited by entry " + entry + ": " + where).isEqualTo(modelled);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "SLIDING_LOG", mode = EnumSource.Mode.EXCLUDE)
    void scriptAndModelAgreeOnEveryAnswer(Algorithm algorithm) {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        System.out.println("ScriptMatchesModelTest " + algorithm + " seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        MutableClock clock = MutableClock.startingNow();
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
        int compared = 0;
        int admitted = 0;
        int delayed = 0;
        int shielded = 0;
        try {
            for (int s = 0; s < SEQUENCES; s++) {
                String key = "model-" + UUID.randomUUID();
                RateModel model = RateModel.of(algorithm);
                RateRequest r = randomRequest(random, algorithm, key);
                // The entries admitted answers named (a window counter's window), for refunds by entry.
                List<Entry> entries = new ArrayList<>();
                for (int step = 0; step < STEPS; step++) {
                    if (random.nextInt(20) == 0) r = rescaled(random, r);
                    RateRequest call = r.withCost(randomCost(random, r));
                    clock.advance(Duration.ofMillis(randomStep(random, call, clock.millis())));
                    long nowMicros = clock.millis() * 1000;
                    String where = algorithm + " seed=" + seed + " sequence " + s + " step " + step + " " + call
                            + " at " + nowMicros;
                    if (algorithm.refundable() && random.nextInt(10) == 0) {
                        // Half of them as what the nominal limit paid for (the engine's refund within that limit).
                        RateRequest back = random.nextBoolean() ? call : call.withEffectiveLimit(call.limit());
                        if (!entries.isEmpty() && random.nextBoolean()) {
                            refundByEntry(backend, model, back, entries.get(random.nextInt(entries.size())), nowMicros, where);
                            continue;
                        }
                        backend.refund(back).toCompletableFuture().join();
                        model.refund(back, nowMicros);
                        continue;
                    }
                    RateOutcome fromRedis = backend.tryConsume(call).toCompletableFuture().join();
                    RateOutcome fromModel = model.consume(call, nowMicros);
                    assertThat(Decided.of(fromRedis)).as(where).isEqualTo(Decided.of(fromModel));
                    assertThat(fromRedis.entry()).as("the window named: " + where).isEqualTo(fromModel.entry());
                    if (fromRedis.entry() != null) entries.add(fromRedis.entry());
                    compared++;
                    // The attack shield may only reject what the store would: a cost-1 request just before the
                    // shield lifts must be rejected (a rejection changes nothing, so the probe leaves no trace).
                    long shield = RateShield.millis(call, fromModel);
                    if (shield > 0) {
                        RateOutcome probe = model.consume(call.withCost(1), nowMicros + (shield - 1) * 1000);
                        assertThat(probe.allowed()).as("shielded " + shield + " ms: " + where).isFalse();
                        shielded++;
                    }
                    if (fromModel.allowed()) admitted++;
                    if (fromModel.delayMillis() > 0) delayed++;
                }
            }
        } finally {
            backend.close();
        }
        System.out.println("ScriptMatchesModelTest " + algorithm + ": " + compared + " decisions identical ("
                + admitted + " admitted, " + delayed + " delayed, " + shielded + " shield periods checked)");
        assertThat(compared).isGreaterThan(SEQUENCES * STEPS / 2);
        assertThat(admitted).as("admitted").isBetween(compared / 10, compared - compared / 10);
    }

    /**
     * A soft token bucket (5/1h, overage 100%: a bucket of 5 and the overage's of 5): a refund at the nominal limit,
     * as the engine sends one for a request the bucket paid for, puts the token back into the bucket and leaves the
     * overage's debt as it was; one under the overage goes to the overage's bucket. Script and model alike (seed
     * 476439900 of EngineMatchesModelIT: the token went to the overage's full bucket, and the key had one less).
     */
    @org.junit.jupiter.api.Test
    void aRefundAtTheNominalLimitGoesBackIntoTheBucketAndKeepsTheOveragesDebt() {
        MutableClock clock = MutableClock.startingNow();
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
        RateModel model = RateModel.of(Algorithm.TOKEN_BUCKET);
        RateRequest soft = RateRequest.of(Algorithm.TOKEN_BUCKET, "model-" + UUID.randomUUID(), 5, Duration.ofHours(1))
                .withEffectiveLimit(10);
        RateRequest nominal = soft.withEffectiveLimit(soft.limit());
        long now = clock.millis() * 1000;
        try {
            RateOutcome first = both(backend, model, soft, now);
            assertThat(first.allowed()).isTrue();
            assertThat(first.overLimit()).isFalse();
            assertThat(first.remaining()).isEqualTo(4);
            backend.refund(nominal).toCompletableFuture().join();
            model.refund(nominal, now);
            assertThat(both(backend, model, soft, now).remaining()).as("the token is back in the bucket").isEqualTo(4);
            for (int i = 0; i < 4; i++) assertThat(both(backend, model, soft, now).overLimit()).isFalse();
            RateOutcome over = both(backend, model, soft, now);
            assertThat(over.allowed()).isTrue();
            assertThat(over.overLimit()).isTrue();
            // The bucket paid for one more: back at the nominal limit, the overage's one token of debt stays.
            backend.refund(nominal).toCompletableFuture().join();
            model.refund(nominal, now);
            RateOutcome again = both(backend, model, soft, now);
            assertThat(again.allowed()).isTrue();
            assertThat(again.overLimit()).isFalse();
            for (int i = 0; i < 4; i++) assertThat(both(backend, model, soft, now).overLimit()).as("overage " + i).isTrue();
            assertThat(both(backend, model, soft, now).allowed()).as("the overage's 5, one used before").isFalse();
            // Under the overage, a refund goes to the overage's bucket.
            backend.refund(soft).toCompletableFuture().join();
            model.refund(soft, now);
            assertThat(both(backend, model, soft, now).overLimit()).isTrue();
        } finally {
            backend.close();
        }
    }

    /** The script's answer, which must be the model's. */
    private static RateOutcome both(RedissonBackend backend, RateModel model, RateRequest r, long nowMicros) {
        RateOutcome fromRedis = backend.tryConsume(r).toCompletableFuture().join();
        assertThat(fromRedis).isEqualTo(model.consume(r, nowMicros));
        return fromRedis;
    }

    /**
     * {@code sliding-log} has no model of its own kind: its twin is the in-memory backend's log. The real
     * {@code rate.lua} (on the caller's clock, as always for this algorithm) and the in-memory backend on the same
     * clock must give identical answers too.
     */
    @org.junit.jupiter.api.Test
    void slidingLogScriptAndTheInMemoryLogAgreeOnEveryAnswer() {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        System.out.println("ScriptMatchesModelTest sliding-log seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        MutableClock clock = MutableClock.startingNow();
        RedissonBackend backend = RedissonBackend.onCallerClock(redisson.client(), clock, Duration.ofSeconds(5));
        InMemoryBackend memory = new InMemoryBackend(clock);
        int compared = 0;
        int admitted = 0;
        try {
            for (int s = 0; s < SEQUENCES / 2; s++) {
                String key = "model-" + UUID.randomUUID();
                RateRequest r = randomRequest(random, Algorithm.SLIDING_LOG, key);
                // rate.lua's keys live one period (and an eighth) of real time, while this test's time runs ahead:
                // periods of a minute or more, so that no stall of the test machine lets a key expire under it.
                Duration period = r.period().toMillis() < MIN_LOG_PERIOD_MS ? Duration.ofMillis(MIN_LOG_PERIOD_MS) : r.period();
                long limit = Math.min(r.limit(), 50);
                r = new RateRequest(key, Algorithm.SLIDING_LOG, limit, period, 1, limit, 0, limit + (r.overage() ? 1 + limit / 5 : 0));
                for (int step = 0; step < STEPS; step++) {
                    RateRequest call = r.withCost(randomCost(random, r));
                    clock.advance(Duration.ofMillis(randomStep(random, call, clock.millis())));
                    String where = "sliding-log seed=" + seed + " sequence " + s + " step " + step + " " + call + " at " + clock.millis();
                    if (random.nextInt(10) == 0) {
                        backend.refund(call).toCompletableFuture().join();
                        memory.refund(call).toCompletableFuture().join();
                        continue;
                    }
                    RateOutcome fromRedis = backend.tryConsume(call).toCompletableFuture().join();
                    RateOutcome fromMemory = memory.tryConsume(call).toCompletableFuture().join();
                    assertThat(Decided.of(fromRedis)).as(where).isEqualTo(Decided.of(fromMemory));
                    compared++;
                    if (fromMemory.allowed()) admitted++;
                }
            }
        } finally {
            backend.close();
            memory.close();
        }
        System.out.println("ScriptMatchesModelTest sliding-log: " + compared + " decisions identical (" + admitted + " admitted)");
        assertThat(admitted).as("admitted").isBetween(compared / 10, compared - compared / 10);
    }

    static RateRequest randomRequest(SplittableRandom random, Algorithm algorithm, String key) {
        long limit = 1 + random.nextInt(random.nextBoolean() ? 10 : 200);
        Duration period = Duration.ofMillis(PERIODS_MS[random.nextInt(PERIODS_MS.length)]);
        RateRequest r = RateRequest.of(algorithm, key, limit, period);
        if (algorithm == Algorithm.TOKEN_BUCKET && random.nextBoolean()) r = r.withBurst(1 + random.nextInt((int) limit * 2));
        if (algorithm == Algorithm.LEAKY_BUCKET) r = r.withQueue(random.nextInt(3) == 0 ? 0 : random.nextInt(8));
        if (random.nextInt(3) == 0) r = r.withEffectiveLimit(limit + 1 + random.nextInt((int) limit));
        return r;
    }

    /** A reloaded rule: same key, another limit (and so another effective limit and burst). */
    private static RateRequest rescaled(SplittableRandom random, RateRequest r) {
        long limit = 1 + random.nextInt(100);
        long extra = r.overage() ? 1 + random.nextInt((int) limit) : 0;
        return new RateRequest(r.key(), r.algorithm(), limit, r.period(), 1,
                r.algorithm() == Algorithm.TOKEN_BUCKET ? 1 + random.nextInt((int) limit * 2) : limit, r.queue(), limit + extra);
    }

    private static long randomCost(SplittableRandom random, RateRequest r) {
        int pick = random.nextInt(10);
        if (pick < 7) return 1;
        if (pick < 9) return 1 + random.nextInt((int) Math.min(r.effectiveLimit(), 20));
        return r.effectiveLimit() + 1 + random.nextInt(5); // can never fit (except in a deep token bucket)
    }

    /** Mostly below one interval (bursts), some around it, some across windows and beyond idle expiry. */
    private static long randomStep(SplittableRandom random, RateRequest r, long now) {
        long period = r.period().toMillis();
        long interval = Math.max(1, period / r.limit());
        return switch (random.nextInt(8)) {
            case 0 -> 0;
            case 1, 2 -> random.nextLong(interval + 1);
            case 3, 4 -> random.nextLong(2 * interval + 1);
            case 5 -> random.nextLong(period / 4 + 1);
            case 6 -> period - (now % period) - 1 + random.nextInt(3); // just before, on or after a window boundary
            default -> random.nextInt(4) == 0 ? random.nextLong(3 * period + 1) : 1;
        };
    }
}
