package io.sluice.redisson;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisYaml;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redisson's lazy start connects in the thread of the first command and, with its default settings
 * (10 s connect timeout, retries), holds that thread for seconds while Redis is unreachable. Sluice
 * connects on its own thread instead: a decision never waits in the caller's thread, follows the failure
 * policy at its deadline, and enforces once Redis appears, without a restart.
 */
class BackgroundConnectTest {
    @Test
    void decisionsNeverWaitForRedissonsFirstConnectionAndEnforceOnceRedisAppears() {
        int port = TestRedis.freePort();
        // Redisson's defaults on purpose: only Sluice's own deadline bounds the decision.
        String yaml = "singleServerConfig:\n  address: \"redis://127.0.0.1:" + port + "\"\n";
        try (Sluice sluice = Sluice.fromProperties(Map.of(
                "sluice.redis.config", RedisYaml.file(yaml),
                "sluice.backend-timeout", "200ms",
                "sluice.await-backend", "0s",
                "sluice.on-backend-failure", "deny",
                "sluice.rules.r.rate", "3/1h"))) {
            Rule rule = sluice.rules().get("r").orElseThrow();

            CompletableFuture<Admission> pending = sluice.admit(List.of(rule), k -> "down").toCompletableFuture();
            assertThat(pending).as("admit() returns before Redisson's connection attempt ends").isNotDone();
            Decision down = pending.join().decisions().get(0);
            assertThat(down.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            assertThat(down.allowed()).isFalse();

            try (RedisProcess redis = RedisProcess.start(port, false, List.of())) {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() ->
                        decide(sluice, rule, "probe").outcome() == Decision.Outcome.DECIDED);
                List<Boolean> allowed = new java.util.ArrayList<>();
                for (int i = 0; i < 5; i++) allowed.add(decide(sluice, rule, "user").allowed());
                assertThat(allowed).containsExactly(true, true, true, false, false);
                assertThat(redis.command("ZCARD", "{" + sluice.rules().settings().keyPrefix()
                        + ":r:sliding-log:1h:" + io.sluice.key.KeyResolver.hash("user") + "}:permits")).isEqualTo(3L);
            }
        }
    }

    private static Decision decide(Sluice sluice, Rule rule, String key) {
        try (Admission a = sluice.admit(List.of(rule), k -> key).toCompletableFuture().join()) {
            return a.decisions().get(0);
        }
    }
}
