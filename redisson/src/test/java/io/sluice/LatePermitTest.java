package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A concurrency permit Redis grants after Sluice stopped waiting for it is not left taken for its lease (issue 21).
 * Redis is frozen (SIGSTOP) while requests arrive: each is decided by the failure policy at its deadline, while its
 * acquire script waits in the socket and runs when Redis goes on, after Redisson's own call has failed with its
 * timeout. Sluice chose the permit's id and released it when it gave up; the release, whichever reaches Redis first,
 * undoes the late grant (or leaves a tombstone that makes it take nothing).
 *
 * <p>Before the fix only 1 of the 4 permits was free a second after the freeze, with nothing running, and requests
 * were rejected until the leases (30 s) expired.
 */
class LatePermitTest {
    private static final int LIMIT = 4;
    private static final int DURING_FREEZE = 3;
    /** A second after the freeze (the measure), plus the deadline and a loaded machine's slack. */
    private static final Duration ALL_FREE_WITHIN = Duration.ofMillis(1_500);

    @Test
    void permitsGrantedAfterTheDeadlineAreFreeOnceRedisGoesOn() {
        try (RedisProcess redis = RedisProcess.start(RedisVersion.REDIS_7);
             Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.key-prefix", "late", "sluice.backend-timeout", "100ms",
                     "sluice.rules.c.concurrency", Integer.toString(LIMIT), "sluice.rules.c.key", "global",
                     "sluice.rules.c.lease", "30s"))) {
            Connected.await(sluice);
            Rule rule = sluice.rules().get("c").orElseThrow();
            KeySource key = KeySource.fixed("*");
            assertThat(free(sluice, rule)).isEqualTo(LIMIT);

            redis.freeze();
            int byPolicy = 0;
            try {
                for (int i = 0; i < DURING_FREEZE; i++) {
                    try (Admission a = sluice.admit(List.of(rule), key).toCompletableFuture().join()) {
                        if (a.allowed() && a.decisions().get(0).outcome() == Decision.Outcome.BACKEND_FAILURE) byPolicy++;
                    }
                }
            } finally {
                redis.thaw();
            }
            assertThat(byPolicy).as("requests decided by the failure policy during the freeze").isEqualTo(DURING_FREEZE);

            // Nothing runs: every permit is free again within a second of Redis going on.
            AtomicInteger seen = new AtomicInteger(-1);
            long thawed = System.nanoTime();
            try {
                await().atMost(ALL_FREE_WITHIN).pollInterval(Duration.ofMillis(20))
                        .until(() -> free(sluice, rule, seen) == LIMIT);
                System.out.println("late permits: all " + LIMIT + " free " + (System.nanoTime() - thawed) / 1_000_000
                        + " ms after Redis went on");
            } catch (ConditionTimeoutException stranded) {
                assertThat(seen.get()).as("permits free %s after the freeze, with nothing running", ALL_FREE_WITHIN).isEqualTo(LIMIT);
            }

            // And they are taken as usual: exactly the limit held at once, the next one rejected by the rule.
            Connected.await(sluice); // the breaker the freeze opened is closed again (probes on keys of their own)
            List<CompletableFuture<Admission>> calls = new ArrayList<>();
            for (int i = 0; i < LIMIT; i++) calls.add(sluice.admit(List.of(rule), key).toCompletableFuture());
            List<Admission> held = calls.stream().map(CompletableFuture::join).toList();
            assertThat(held).allSatisfy(a -> assertThat(a.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED));
            assertThat(held.stream().filter(Admission::allowed).count()).as("admitted of %d concurrent", LIMIT).isEqualTo(LIMIT);
            try (Admission fifth = sluice.admit(List.of(rule), key).toCompletableFuture().join()) {
                assertThat(fifth.allowed()).as("the fifth").isFalse();
                assertThat(fifth.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.DECIDED);
            }
            held.forEach(Admission::close);
        }
    }

    private static int free(Sluice sluice, Rule rule) {
        return sluice.availablePermits(rule, "*").toCompletableFuture().join();
    }

    private static int free(Sluice sluice, Rule rule, AtomicInteger seen) {
        int free = free(sluice, rule);
        seen.set(free);
        return free;
    }
}
