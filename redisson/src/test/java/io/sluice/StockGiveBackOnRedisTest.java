package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.rule.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static io.sluice.CallerClockEngine.admitSettled;
import static io.sluice.CallerClockEngine.remaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's late give-back of a sliding log, for permits paid from this server's prefetched stock, through the whole
 * engine on a real Redis, time injected: a request's success gives back its own use of the stock (while the stock is
 * held, off that use in memory; once it is back, off the entry Redis logged that use under), not a later request's use
 * nor another request's entry. {@code rate=3/10s} counting failures, {@code prefetch=2}, {@code prefetch-hold=1s}: X at
 * 0 s is decided in Redis (its failure counts) and brings a stock of 2, which pays A and then B; A succeeds.
 */
class StockGiveBackOnRedisTest {
    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(1);

    private Sluice sluice() {
        return engines.build("sluice.rules.login.rate", "3/10s",
                "sluice.rules.login.algorithm", "sliding-log", "sluice.rules.login.count", "failure",
                "sluice.rules.login.prefetch", "2", "sluice.rules.login.prefetch-hold", "1s");
    }

    /** X at 0 s (kept), A at {@code aAt}, B at 0.5 s, both from the stock. */
    private Admission[] xThenAAndBFromTheStock(Sluice s, long aAt) {
        Admission x = admitSettled(s, "login", "alice");
        assertThat(x.allowed()).isTrue();
        assertThat(EngineProbe.held(s.engine())).as("X brought a stock of 2").isEqualTo(2);
        x.end(Ending.status(401)).toCompletableFuture().join();
        engines.clock().advance(Duration.ofMillis(aAt));
        Admission a = admitSettled(s, "login", "alice");
        assertThat(a.allowed()).isTrue();
        engines.clock().advance(Duration.ofMillis(500 - aAt));
        Admission b = admitSettled(s, "login", "alice");
        assertThat(b.allowed()).isTrue();
        assertThat(EngineProbe.held(s.engine())).as("A and B were paid from the stock").isZero();
        b.end(Ending.status(401)).toCompletableFuture().join();
        return new Admission[] {x, a, b};
    }

    /**
     * A's success at 0.5 s, within the hold: A's permit goes back into the stock, off A's use (0 s), so B's counts from
     * 0.5 s. At 10.2 s X's has left and B's counts until 10.5 s: exactly 2 admitted (Remaining 1, then 0), the third
     * rejected for 300 ms. Before, the put-back took B's use off instead and kept A's at 0 s: 3 admitted at 10.2 s, 4 in
     * the window from 0.5 s to 10.5 s.
     */
    @Test
    void aStockPaidPermitGivenBackWithinTheHoldLeavesALaterUseAtItsTime() {
        try (Sluice s = sluice()) {
            Admission a = xThenAAndBFromTheStock(s, 0)[1];
            a.end(Ending.status(200)).toCompletableFuture().join();
            assertThat(EngineProbe.held(s.engine())).as("A's permit is back in the stock").isEqualTo(1);
            engines.clock().advance(Duration.ofMillis(500));
            EngineProbe.sweep(s.engine()).join();
            assertThat(EngineProbe.held(s.engine())).as("the stock went back at its hold's end").isZero();
            engines.clock().advance(Duration.ofMillis(9_200));
            assertTwoAdmittedThenRejectedFor(s, 300);
        }
    }

    /**
     * A at 0.1 s, B at 0.5 s; the stock goes back at its hold's end (1 s), its uses logged at 0.1 s and 0.5 s; A's
     * success at 2 s takes A's use off in Redis. At 10.05 s X's has left, B's counts until 10.5 s: exactly 2 admitted,
     * the third rejected for 450 ms. Before, the give-back removed the newest entry of a request's, X's (0 s), and A's
     * use counted until 10.1 s: 1 admitted at 10.05 s.
     */
    @Test
    void aStockPaidPermitGivenBackAfterTheHoldTakesItsOwnUseOffInRedis() {
        try (Sluice s = sluice()) {
            Admission a = xThenAAndBFromTheStock(s, 100)[1];
            engines.clock().advance(Duration.ofMillis(500));
            EngineProbe.sweep(s.engine()).join();
            engines.clock().advance(Duration.ofMillis(1_000));
            a.end(Ending.status(200)).toCompletableFuture().join();
            engines.clock().advance(Duration.ofMillis(8_050));
            assertTwoAdmittedThenRejectedFor(s, 450);
        }
    }

    private void assertTwoAdmittedThenRejectedFor(Sluice s, long retryMillis) {
        Admission first = admitSettled(s, "login", "alice");
        assertThat(first.allowed()).as("B's permit still counts, A's does not").isTrue();
        assertThat(remaining(first)).isEqualTo(1);
        Admission second = admitSettled(s, "login", "alice");
        assertThat(second.allowed()).isTrue();
        assertThat(remaining(second)).isZero();
        Admission third = admitSettled(s, "login", "alice");
        assertThat(third.allowed()).as("3 in the window holding B's use").isFalse();
        assertThat(third.rejection().orElseThrow().remaining()).isZero();
        assertThat(third.rejection().orElseThrow().retryAfter()).isEqualTo(Duration.ofMillis(retryMillis));
        engines.clock().advance(Duration.ofMillis(retryMillis));
        EngineProbe.sweep(s.engine()).join();
        Admission after = admitSettled(s, "login", "alice");
        assertThat(after.allowed()).as("B's use left the window").isTrue();
    }
}
