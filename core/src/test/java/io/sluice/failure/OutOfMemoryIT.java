package io.sluice.failure;

import io.sluice.Sluice;
import io.sluice.testing.EngineLoad;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.Resp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redis out of memory ({@code maxmemory} reached with {@code noeviction}) refuses every write, and so every
 * decision: each rule's {@code on-backend-failure} applies, no error reaches a caller, and limits are exact again
 * once memory is available.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class OutOfMemoryIT {
    @Parameter
    RedisVersion version;


    @Test
    void outOfMemoryFollowsTheFailurePolicy() throws Exception {
        try (RedisProcess redis = version.start("maxmemory-policy noeviction");
             Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.rules.open.rate", "1000000/1m",
                     "sluice.rules.closed.rate", "1000000/1m",
                     "sluice.rules.closed.on-backend-failure", "deny",
                     "sluice.rules.slots.concurrency", "1000",
                     "sluice.rules.check.rate", "5/2s"))) {
            java.util.function.BooleanSupplier exact = () -> Probe.exact(sluice, "check");
            await().atMost(Duration.ofSeconds(20)).until(exact::getAsBoolean);
            try (EngineLoad load = EngineLoad.start(sluice, 4, 1_000, "open", "closed", "slots")) {
                await().atMost(Duration.ofSeconds(10)).until(() -> load.decided.get() > 100);
                redis.command("CONFIG", "SET", "maxmemory", "1"); // far below what is used: every write is refused
                try (Resp resp = Resp.connect(redis.port(), Duration.ofSeconds(5))) {
                    assertThatThrownBy(() -> resp.call("SET", "x", "y")).hasMessageStartingWith("OOM");
                }
                long failuresBefore = load.backendFailures.get();
                var during = load.measure();
                await().atMost(Duration.ofSeconds(10)).until(() -> load.backendFailures.get() > failuresBefore + 500);
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
        }
    }
}
