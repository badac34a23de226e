package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static io.sluice.CallerClockEngine.remaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A prefetching key's request decided in Redis without a call of the key's own (it waited for another request's call,
 * whose stock could not pay its cost) beside a refill that a stock-paid request starts while it is in flight. Redis
 * runs the two in one order, their answers land in Java in the other: unordered, whichever landed last set what the
 * key had left besides this server's stocks, so the decision's permits were left out (the refill ran first) or the
 * refill's stock counted twice (the decision ran first), and the stock-paid requests after read too many until the
 * key's next call. On a real Redis, time injected; the gates below hold calls as a busy network would.
 * {@code fixed-window} {@code 20/1h}, {@code prefetch=4}.
 */
class RefillBesideADecisionOnRedisTest {
    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(60_000);

    /** The cost of W and X: more than a stock of the key's ever holds. */
    private static final long COSTLY = 5;

    /** {@link GatedBackend}, and while gating a refill's answer (Redis runs it at once) held too. */
    private static final class Gated extends GatedBackend {
        final Gate refill = new Gate();

        Gated() {
            super(engines, COSTLY);
        }

        @Override
        public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
            CompletionStage<Prefetch> sent = super.prefetch(permit, ahead, hold, usedUp);
            return gating ? refill.hold(sent) : sent;
        }
    }

    private static Sluice sluice(Gated backend) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", engines.prefix());
        p.put("sluice.backend-timeout", "30s");
        p.put("sluice.rules.r1.rate", "20/1h");
        p.put("sluice.rules.r1.algorithm", "fixed-window");
        p.put("sluice.rules.r1.prefetch", "4");
        return Sluice.builder().properties(p).backend(backend).clock(engines.clock()).ticker(engines.clock()).build();
    }

    private static CompletableFuture<Admission> admit(Sluice s, long cost) {
        Rule r = s.rules().get("r1").orElseThrow();
        return s.admit(List.of(r), KeySource.fixed("alice").withCost(cost)).toCompletableFuture();
    }

    /**
     * P brings the stock S0 (4). W (cost 5) hands S0 back and waits for the hand-back; so does X (cost 5). Answered, W
     * asks for the key's call and X waits for it. It brings S1 (4), which cannot pay X: X is decided in Redis, held
     * before it. Redis taken: P, W, S1: 10.
     */
    private static CompletableFuture<Admission> decisionHeldBeforeRedis(Sluice s, Gated backend) {
        Admission p = admit(s, 1).join();
        assertThat(remaining(p)).as("P").isEqualTo(19);
        backend.gating = true;
        CompletableFuture<Admission> w = admit(s, COSTLY);
        CompletableFuture<Admission> x = admit(s, COSTLY);
        backend.handBack.pass();
        backend.prefetch.pass();
        assertThat(remaining(w.join())).as("W").isEqualTo(14);
        assertThat(x).as("X, held before Redis").isNotDone();
        return x;
    }

    /** Z1 to Z3 paid from S1; Z3 leaves a quarter of it and starts the refill, which Redis runs at once. */
    private static void threeFromTheStock(Sluice s) {
        assertThat(remaining(admit(s, 1).join())).as("Z1").isEqualTo(13);
        assertThat(remaining(admit(s, 1).join())).as("Z2").isEqualTo(12);
        assertThat(remaining(admit(s, 1).join())).as("Z3, starting the refill").isEqualTo(11);
    }

    /**
     * Redis runs the refill (S2, 4) and then X; X's answer lands first, the refill's after. Z4, paid from S1's last
     * permit, has what the contract leaves: P, W, X and Z1 to Z4 of 20: 5. Before, the refill's answer (taken before X)
     * set what was heard last, leaving X out: 10.
     */
    @Test
    void aRefillRedisRanFirstAndLandedLastCountsTheDecision() {
        Gated backend = new Gated();
        try (Sluice s = sluice(backend)) {
            CompletableFuture<Admission> x = decisionHeldBeforeRedis(s, backend);
            threeFromTheStock(s);
            backend.refill.answered();

            backend.costly.complete(null);
            backend.costlyAnswer.open();
            assertThat(x.join().allowed()).as("X").isTrue();
            // Low by S2, whose answer has not landed (the safe side): the key may take 6.
            assertThat(remaining(x.join())).as("X").isEqualTo(2);
            backend.refill.open();

            Admission z4 = admit(s, 1).join();
            assertThat(z4.allowed()).isTrue();
            assertThat(remaining(z4)).as("Z4, paid from S1").isEqualTo(5);
        }
    }

    /**
     * Redis runs X and then the refill (S2, 4); the refill's answer lands first, X's after. X has what the key may still
     * take then: P, W, X, Z1 to Z3 of 20: 6 (before: 10, S2 counted twice). Z4, paid from S1's last permit: 5 (before: 9).
     */
    @Test
    void aDecisionRedisRanFirstAndLandedLastCountsTheRefillOnce() {
        Gated backend = new Gated();
        try (Sluice s = sluice(backend)) {
            CompletableFuture<Admission> x = decisionHeldBeforeRedis(s, backend);
            backend.costly.complete(null);
            backend.costlyAnswer.answered();
            threeFromTheStock(s);
            backend.refill.answered();
            backend.refill.open();

            backend.costlyAnswer.open();
            assertThat(x.join().allowed()).as("X").isTrue();
            assertThat(remaining(x.join())).as("X").isEqualTo(6);

            Admission z4 = admit(s, 1).join();
            assertThat(z4.allowed()).isTrue();
            assertThat(remaining(z4)).as("Z4, paid from S1").isEqualTo(5);
        }
    }
}
