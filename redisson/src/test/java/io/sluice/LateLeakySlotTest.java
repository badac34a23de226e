package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisProcess;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A leaky bucket's slot that Redis gives a request after Sluice stopped waiting for it is given back (issue 21, IT seed
 * 859683050: {@code Remaining} 0 where the model says 1). Redis is frozen (SIGSTOP) while a request arrives: the failure
 * policy denies it at its deadline, and its decision call waits in the socket and runs once Redis goes on, well inside
 * its expiry (the client's timeout). Its late answer names the slot's end, and the engine gives that slot back: still
 * the last one scheduled, the bucket is as if the request had never come.
 *
 * <p>Before the fix the key's one slot an hour stayed taken: {@code Remaining} 0 and the next request rejected for an
 * hour.
 */
class LateLeakySlotTest {
    /** A second after the freeze (the contract's measure for what Redis did late), plus a loaded machine's slack. */
    private static final Duration GIVEN_BACK_WITHIN = Duration.ofMillis(1_500);

    @Test
    void aSlotTakenAfterTheDeadlineIsGivenBack() {
        try (RedisProcess redis = RedisProcess.start();
             Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.key-prefix", "late-slot", "sluice.backend-timeout", "100ms",
                     "sluice.on-backend-failure", "deny",
                     "sluice.rules.l.rate", "1/1h", "sluice.rules.l.algorithm", "leaky-bucket",
                     "sluice.rules.l.key", "global"))) {
            Connected.await(sluice);
            Rule rule = sluice.rules().get("l").orElseThrow();
            KeySource key = KeySource.fixed("*");
            assertThat(remaining(sluice)).isEqualTo(1);

            redis.freeze();
            try (Admission a = sluice.admit(List.of(rule), key).toCompletableFuture().join()) {
                assertThat(a.allowed()).as("denied at its deadline").isFalse();
                assertThat(a.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            } finally {
                redis.thaw();
            }

            // Redis runs the late call, which takes the slot; its answer gives it back.
            AtomicLong seen = new AtomicLong(-1);
            try {
                await().atMost(GIVEN_BACK_WITHIN).pollInterval(Duration.ofMillis(20)).until(() -> {
                    seen.set(remaining(sluice));
                    return seen.get() == 1;
                });
            } catch (ConditionTimeoutException stranded) {
                assertThat(seen.get()).as("Remaining %s after the freeze", GIVEN_BACK_WITHIN).isEqualTo(1);
            }

            // And the slot is taken as usual: one admitted in Redis, the next rejected by the rule.
            Connected.await(sluice);
            try (Admission first = sluice.admit(List.of(rule), key).toCompletableFuture().join();
                 Admission second = sluice.admit(List.of(rule), key).toCompletableFuture().join()) {
                assertThat(first.allowed()).isTrue();
                assertThat(first.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED);
                assertThat(second.allowed()).isFalse();
                assertThat(second.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.DECIDED);
            }
        }
    }

    private static long remaining(Sluice sluice) {
        return sluice.usage("l", "*").toCompletableFuture().join().rate().orElseThrow().remaining();
    }
}
