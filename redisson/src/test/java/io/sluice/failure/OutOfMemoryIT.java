package io.sluice.failure;

import io.sluice.Sluice;
import io.sluice.testing.EngineLoad;
import io.sluice.testing.RedisKeyAudit;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.Resp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redis out of memory ({@code maxmemory} reached with {@code noeviction}) refuses every write, and so every
 * decision: each rule's {@code on-backend-failure} applies, no error reaches a caller, and limits are exact again
 * once memory is available. The rate rules come in all five algorithms ({@link RateRules}) in one engine: every
 * algorithm's script is refused and follows its rule's policy, every one is exact again, and every key has a TTL.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class OutOfMemoryIT {
    @Parameter
    RedisVersion version;


    private static Map<String, String> with(Map<String, String> p, String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(p);
        copy.put(key, value);
        return copy;
    }

    @Test
    void outOfMemoryFollowsTheFailurePolicy() throws Exception {
        Map<String, String> p = new LinkedHashMap<>();
        List<String> open = RateRules.addAll(p, "open", "1000000/1m", Map.of());
        List<String> closed = RateRules.addAll(p, "closed", "1000000/1m", Map.of("on-backend-failure", "deny"));
        List<String> checks = RateRules.addAll(p, "check", "5/2s", 0, Map.of());
        p.put("sluice.rules.slots.concurrency", "1000");
        List<String> loaded = new ArrayList<>(open);
        loaded.addAll(closed);
        loaded.add("slots");
        try (RedisProcess redis = version.start("maxmemory-policy noeviction");
             Sluice sluice = Sluice.fromProperties(with(p, "sluice.redis.address", redis.address()))) {
            java.util.function.BooleanSupplier exact = () -> Probe.exact(sluice, checks);
            await().atMost(Duration.ofSeconds(20)).until(exact::getAsBoolean);
            try (EngineLoad load = EngineLoad.start(sluice, 4, 1_000, loaded)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> load.decided.get() > 100);
                redis.command("CONFIG", "SET", "maxmemory", "1"); // far below what is used: every write is refused
                try (Resp resp = Resp.connect(redis.port(), Duration.ofSeconds(5))) {
                    assertThatThrownBy(() -> resp.call("SET", "x", "y")).hasMessageStartingWith("OOM");
                }
                long failuresBefore = load.backendFailures.get();
                Map<String, Long> before = new LinkedHashMap<>();
                for (String rule : loaded) before.put(rule, load.backendFailures(rule));
                var during = load.measure();
                // Every algorithm's script refused: each load rule has failure decisions of its own.
                await().atMost(Duration.ofSeconds(10)).until(() -> load.backendFailures.get() > failuresBefore + 500
                        && loaded.stream().allMatch(rule -> load.backendFailures(rule) > before.get(rule)));
                redis.command("CONFIG", "SET", "maxmemory", "0");
                long healedAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(10)).until(exact::getAsBoolean);
                long recovery = (System.nanoTime() - healedAt) / 1_000_000;
                load.close();
                System.out.println("out of memory: " + during.summary() + "; " + (load.backendFailures.get() - failuresBefore)
                        + " failure decisions, " + load.errors.get() + " errors; exact again " + recovery + " ms after memory was freed");
                assertThat(load.errors.get()).as("errors reaching callers: " + load.firstError()).isZero();
                assertThat(load.policyViolations.get()).isZero();
                assertThat(during.p99()).isLessThanOrEqualTo(200);
            }
            RedisKeyAudit audit = RedisKeyAudit.of(redis.port(), "sluice");
            assertThat(audit.withoutTtl).as(audit.toString()).isEmpty();
            assertThat(audit.malformed).as(audit.toString()).isEmpty();
        }
    }
}
