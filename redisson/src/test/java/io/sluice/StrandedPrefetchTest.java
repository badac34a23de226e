package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.rule.Rule;
import io.sluice.testing.RedisProcess;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A prefetching decision that a frozen Redis (SIGSTOP) runs after Sluice gave up on it: Sluice never learns of the
 * stock it took, so it hands back by the prefetch's id whatever that call took, whether the hand-back reaches Redis
 * after the late call or before it. After recovery the key has the whole of its limit but the one request's permit
 * (before: 49 of 120 admitted instead of 99, the stock of 50 stranded for the window). Since decision calls expire
 * when their client gives up on them (issue 21, {@code LateDecisionTest}), the freeze outlasts the call's expiry:
 * Redis runs it and it takes nothing, not even the permit of the request the failure policy let through, so the key
 * has its whole limit; the hand-back still goes, and finds nothing to take.
 */
@Timeout(120)
class StrandedPrefetchTest {
    /** How long Redis stays frozen: well past the deadline, so the call fails while Redis still has it to run. */
    private static final Duration FREEZE = Duration.ofMillis(1500);
    /** How long the hand-back may take to land once Redis runs again (it is retried every half second). */
    private static final Duration SETTLE = Duration.ofSeconds(15);

    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void aStockTakenAfterTheDeadlineIsHandedBack(String algorithm) throws Exception {
        try (RedisProcess redis = RedisProcess.start();
             Sluice sluice = Sluice.fromProperties(Map.of(
                     "sluice.redis.address", redis.address(),
                     "sluice.backend-timeout", "300ms",
                     // A day: a token bucket on Redis time refills nothing while the test runs.
                     "sluice.rules.r.rate", "100/1d",
                     "sluice.rules.r.algorithm", algorithm,
                     "sluice.rules.r.prefetch", "50"))) {
            Rule rule = sluice.rules().get("r").orElseThrow();
            // Connected (Sluice connects in the background), scripts loaded: only the frozen call fails.
            assertThat(within(SETTLE, () -> admit(sluice, rule, "warm").outcome() == Decision.Outcome.DECIDED)).isTrue();
            redis.freeze();
            Decision during;
            try {
                during = admit(sluice, rule, "k");
            } finally {
                Thread.sleep(FREEZE.toMillis()); // the freeze itself: Redis stays stopped this long in real time
                redis.thaw();
            }
            assertThat(during.outcome()).as("decided by the failure policy").isNotEqualTo(Decision.Outcome.DECIDED);
            // Once the late call has run, refused as late (taking nothing), nothing is taken.
            boolean settled = within(SETTLE, () -> String.valueOf(redis.command("INFO", "errorstats")).contains("errorstat_SLUICE_LATE"));
            assertThat(settled).as("the late call refused by Redis").isTrue();
            int admitted = 0;
            for (int i = 0; i < 120; i++) {
                if (admit(sluice, rule, "k").allowed()) admitted++;
            }
            System.out.println("StrandedPrefetchTest " + algorithm + ": settled " + settled + ", " + admitted + " of 120 admitted after recovery");
            assertThat(admitted).as("admitted of 120 after recovery (100 a day; the call of the request in the freeze expired)").isEqualTo(100);
        }
    }

    private static Decision admit(Sluice sluice, Rule rule, String key) {
        Decision d = sluice.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().join().decisions().get(0);
        EngineProbe.settled(sluice.engine(), rule, key).join();
        return d;
    }

    /** Polls {@code condition} until it holds or {@code limit} has passed; whether it held. */
    private static boolean within(Duration limit, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < end) {
            if (condition.getAsBoolean()) return true;
            Thread.sleep(50); // polling a real-time retry, bounded by the limit
        }
        return false;
    }
}
