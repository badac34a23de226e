package io.sluice;

import io.sluice.redisson.CallerClockBackends;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code block}, {@link Sluice#usage} and {@link Sluice#reset} on a real Redis, with two engines sharing it and one
 * injected clock (the engines' clock and ticker and the scripts' time): a block started on one engine holds on
 * both, with Retry-After the time left, until its end; usage says what the next request's headers say, for every
 * algorithm; a reset on one engine restores the full limit and lifts the block on both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BlockAndControlOnRedisTest {
    private static final int LIMIT = 3;
    private static final Duration BLOCK = Duration.ofMinutes(15);
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();
    private final MutableClock clock = MutableClock.startingNow();
    private final List<Sluice> engines = new ArrayList<>();

    @AfterEach
    void closeEngines() {
        engines.forEach(Sluice::close);
        engines.clear();
    }

    /** Two engines of the same rules on one Redis: rule {@code login} ({@code 3/1m}) of {@code algorithm}. */
    private List<Sluice> engines(Algorithm algorithm, boolean block) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", "block-" + UUID.randomUUID().toString().substring(0, 8));
        p.put("sluice.rules.login.rate", LIMIT + "/1m");
        p.put("sluice.rules.login.algorithm", algorithm.id());
        if (block) p.put("sluice.rules.login.block", "15m");
        p.put("sluice.rules.slots.concurrency", "2");
        for (int i = 0; i < 2; i++) {
            engines.add(Sluice.builder().properties(p)
                    .backend(CallerClockBackends.on(redis.client(), clock, Duration.ofSeconds(30)))
                    .clock(clock).ticker(clock).build());
        }
        return List.copyOf(engines);
    }

    /** What a fresh key admits at one instant: a leaky bucket without a queue admits one on pace. */
    private static int atOnce(Algorithm algorithm) {
        return algorithm == Algorithm.LEAKY_BUCKET ? 1 : LIMIT;
    }

    private static Decision decide(Sluice engine, String user) throws Exception {
        Rule rule = engine.rules().get("login").orElseThrow();
        Admission a = engine.admit(List.of(rule), KeySource.fixed(user)).toCompletableFuture().get(30, TimeUnit.SECONDS);
        a.close();
        return a.decisions().get(0);
    }

    private static Usage usage(Sluice engine, String rule, String user) throws Exception {
        return engine.usage(rule, user).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aBlockHoldsOnBothEnginesUntilItEndsAndAResetLiftsIt(Algorithm algorithm) throws Exception {
        List<Sluice> e = engines(algorithm, true);
        for (int i = 0; i < atOnce(algorithm); i++) assertThat(decide(e.get(i % 2), "alice").allowed()).as("request %d", i).isTrue();
        Decision rejected = decide(e.get(1), "alice");
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(BLOCK);
        assertThat(rejected.remaining()).isZero();
        // Blocked on both engines; another key is not.
        for (Sluice engine : e) {
            Decision d = decide(engine, "alice");
            assertThat(d.allowed()).isFalse();
            assertThat(d.retryAfter()).isEqualTo(BLOCK);
            Usage u = usage(engine, "login", "alice");
            assertThat(u.blocked()).isEqualTo(BLOCK);
            assertThat(u.rate().orElseThrow().remaining()).isZero();
        }
        assertThat(decide(e.get(0), "bob").allowed()).isTrue();

        // Long after the window, still blocked: Retry-After counts down.
        clock.advance(Duration.ofMinutes(10));
        for (Sluice engine : e) {
            Decision d = decide(engine, "alice");
            assertThat(d.allowed()).isFalse();
            assertThat(d.retryAfter()).isEqualTo(Duration.ofMinutes(5));
            assertThat(usage(engine, "login", "alice").blocked()).isEqualTo(Duration.ofMinutes(5));
        }
        // A blocked request takes nothing: once the block ends, the full limit, then the next block.
        clock.advance(Duration.ofMinutes(5));
        assertThat(usage(e.get(0), "login", "alice").isBlocked()).isFalse();
        assertThat(usage(e.get(0), "login", "alice").rate().orElseThrow().remaining()).isEqualTo(atOnce(algorithm));
        for (int i = 0; i < atOnce(algorithm); i++) assertThat(decide(e.get(i % 2), "alice").allowed()).as("after the block %d", i).isTrue();
        assertThat(decide(e.get(0), "alice").retryAfter()).isEqualTo(BLOCK);

        // A reset on one engine lifts the block on both, and gives back the full limit.
        e.get(1).reset("login", "alice").toCompletableFuture().get(30, TimeUnit.SECONDS);
        for (Sluice engine : e) {
            Usage u = usage(engine, "login", "alice");
            assertThat(u.isBlocked()).isFalse();
            assertThat(u.rate().orElseThrow().remaining()).isEqualTo(atOnce(algorithm));
        }
        for (int i = 0; i < atOnce(algorithm); i++) assertThat(decide(e.get(i % 2), "alice").allowed()).as("after the reset %d", i).isTrue();
        assertThat(decide(e.get(0), "alice").allowed()).isFalse();
    }

    /**
     * Many requests of one key at once, coalesced into batches (runs of identical requests in one script call):
     * exactly what the key admits at once, every other one rejected for the whole block.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void parallelRequestsOfABlockedKeyAreRejectedAlike(Algorithm algorithm) throws Exception {
        List<Sluice> e = engines(algorithm, true);
        Rule rule = e.get(0).rules().get("login").orElseThrow();
        List<CompletableFuture<Admission>> calls = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            calls.add(e.get(i % 2).admit(List.of(rule), KeySource.fixed("erin")).toCompletableFuture());
        }
        int admitted = 0;
        for (var call : calls) {
            Admission a = call.get(30, TimeUnit.SECONDS);
            a.close();
            if (a.allowed()) admitted++;
            else assertThat(a.rejection().orElseThrow().retryAfter()).isEqualTo(BLOCK);
        }
        assertThat(admitted).isEqualTo(atOnce(algorithm));
        assertThat(usage(e.get(1), "login", "erin").blocked()).isEqualTo(BLOCK);
    }

    /** At random points of a random sequence, usage's remaining is what the next request's headers count from. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void usageIsWhatTheNextRequestSees(Algorithm algorithm) throws Exception {
        List<Sluice> e = engines(algorithm, false);
        Random random = new Random(algorithm.ordinal());
        int checked = 0;
        for (int step = 0; step < 60; step++) {
            if (random.nextInt(4) == 0) clock.advance(Duration.ofMillis(random.nextInt(30_000)));
            Sluice engine = e.get(random.nextInt(2));
            Usage before = usage(e.get(random.nextInt(2)), "login", "carol");
            Decision next = decide(engine, "carol");
            Usage.RateLimit rate = before.rate().orElseThrow();
            assertThat(rate.limit()).isEqualTo(LIMIT);
            assertThat(before.isBlocked()).isFalse();
            if (next.allowed()) {
                assertThat(rate.remaining()).as("step %d", step).isEqualTo(next.remaining() + 1);
            } else {
                assertThat(rate.remaining()).as("step %d", step).isEqualTo(next.remaining());
                assertThat(rate.reset()).as("step %d", step).isEqualTo(next.reset());
            }
            checked++;
        }
        assertThat(checked).isEqualTo(60);
    }

    @Test
    void usageOfAConcurrencyRuleCountsRequestsInFlightAndAResetKeepsThem() throws Exception {
        List<Sluice> e = engines(Algorithm.SLIDING_LOG, false);
        Rule slots = e.get(0).rules().get("slots").orElseThrow();
        Admission held = e.get(0).admit(List.of(slots), KeySource.fixed("dave")).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(held.allowed()).isTrue();
        Usage u = usage(e.get(1), "slots", "dave");
        assertThat(u.rate()).isEmpty();
        assertThat(u.concurrency().orElseThrow()).isEqualTo(new Usage.ConcurrencyLimit(2, 1));
        e.get(1).reset("slots", "dave").toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(usage(e.get(1), "slots", "dave").concurrency().orElseThrow().inFlight()).isEqualTo(1);
        held.close();
        assertThat(usage(e.get(0), "slots", "dave").concurrency().orElseThrow().inFlight()).isZero();
    }

    @Test
    void anUnknownRuleIsNamed() {
        List<Sluice> e = engines(Algorithm.SLIDING_LOG, false);
        assertThatThrownBy(() -> e.get(0).usage("nope", "alice")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nope");
        assertThatThrownBy(() -> e.get(0).reset("nope", "alice")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nope");
    }
}
