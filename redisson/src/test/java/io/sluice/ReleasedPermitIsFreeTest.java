package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.Connected;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A permit a call has returned is free for the next call on the same server at once: its release, which nobody
 * waits for, goes to Redis before the next acquire of the key (which could otherwise overtake it on another
 * connection and find the permit still taken), and {@link Sluice#availablePermits} counts it. 2 000 calls one after
 * another through a rule of 1 in flight: every one admitted. Before the fix 78 of them were rejected, and the CDI
 * and filter suites failed on it now and then.
 */
class ReleasedPermitIsFreeTest {
    @Test
    void eachCallAfterAReleaseGetsThePermit() {
        Map<String, String> p = Map.of("sluice.redis.address", TestRedis.address(), "sluice.key-prefix", "reuse-" + System.nanoTime(),
                "sluice.backend-timeout", "5s", "sluice.rules.one.concurrency", "1", "sluice.rules.one.key", "global");
        try (Sluice sluice = Sluice.fromProperties(p)) {
            Connected.await(sluice);
            List<Rule> rules = List.of(sluice.rules().get("one").orElseThrow());
            int admitted = 0;
            int seenFree = 0;
            for (int i = 0; i < 2_000; i++) {
                try (Admission a = sluice.admit(rules, KeySource.fixed("k")).toCompletableFuture().join()) {
                    if (a.allowed()) admitted++;
                }
                // And what this server reports free counts the release it has just sent.
                if (i % 10 == 0 && sluice.availablePermits(rules.get(0), "*").toCompletableFuture().join() == 1) seenFree++;
            }
            assertThat(admitted).isEqualTo(2_000);
            assertThat(seenFree).isEqualTo(200);
        }
    }
}
