package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.testing.EngineLoad;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis stalled by {@code DEBUG SLEEP} under load: the decisions that timed out during the stall are executed by
 * Redis when it wakes, each exactly once. So the permits consumed never exceed the decisions that were allowed by
 * Redis or timed out, and never fall short of those Redis allowed; and one window after the load ends, a limit has
 * its full capacity again.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class StallAccountingIT {
    @Parameter
    RedisVersion version;


    private static long zcard(RedisProcess redis, String key) {
        return (Long) redis.command("ZCARD", key);
    }

    @Test
    void afterAStallNothingIsCountedTwiceAndFullCapacityReturnsAfterOneWindow() throws Exception {
        try (RedisProcess redis = version.start();
             // Two engines, so each one's stats are those of one rule.
             Sluice counting = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.rules.count.rate", "1000000/1h"));
             // A second's deadline: the stall still times it out, and the exact check at the end never does.
             Sluice windowed = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.backend-timeout", "1s", "sluice.rules.window.rate", "10/2s"))) {
            await().atMost(Duration.ofSeconds(20)).until(() -> Probe.decidedByRedis(counting, "count") && Probe.decidedByRedis(windowed, "window"));
            Stats before = counting.stats();
            long decided;
            try (EngineLoad countLoad = EngineLoad.start(counting, 4, 1, "count");
                 EngineLoad windowLoad = EngineLoad.start(windowed, 2, 1, "window")) {
                await().atMost(Duration.ofSeconds(10)).until(() -> countLoad.decided.get() > 200);
                CompletableFuture<Object> stall = CompletableFuture.supplyAsync(() -> redis.command("DEBUG", "SLEEP", "2"));
                stall.join();
                long decidedAtWake = countLoad.decided.get();
                await().atMost(Duration.ofSeconds(10)).until(() -> countLoad.decided.get() > decidedAtWake + 200);
                countLoad.close();
                windowLoad.close();
                assertThat(countLoad.errors.get() + windowLoad.errors.get()).isZero();
                assertThat(countLoad.backendFailures.get()).as("the stall was felt").isPositive();
                decided = countLoad.decided.get();
            }
            Stats stats = counting.stats();
            long calls = stats.backendCalls() - before.backendCalls();
            String log = Keys.rateLog(counting, "count", "k0");
            // Every call sent before the load stopped has been answered or has timed out; the ones Redis still had
            // queued run within moments of the stall's end. Wait until the count stands still.
            long[] last = {-1};
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(300)).until(() -> {
                long now = zcard(redis, log);
                boolean still = now == last[0];
                last[0] = now;
                return still;
            });
            long consumed = zcard(redis, log);
            long free = Long.parseLong((String) redis.command("GET", Keys.rateValue(counting, "count", "k0")));
            System.out.println("stall: " + decided + " decisions allowed by Redis, " + (calls - decided)
                    + " timed out or failed, " + stats.circuitOpenSkips() + " skipped by the open circuit; permits consumed "
                    + consumed);
            assertThat(consumed).as("permits consumed").isBetween(decided, calls);
            assertThat(free).as("the counter agrees with the log").isEqualTo(1_000_000 - consumed);

            // One window after the last request, the full 10 are free again.
            String windowLog = Keys.rateLog(windowed, "window", "k0");
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                long now = System.currentTimeMillis();
                return (Long) redis.command("ZCOUNT", windowLog, Long.toString(now - 2_000), "+inf") == 0;
            });
            var rule = windowed.rules().get("window").orElseThrow();
            for (int i = 0; i < 11; i++) {
                Admission a = windowed.admit(List.of(rule), KeySource.fixed("k0")).toCompletableFuture().join();
                assertThat(a.allowed()).as("request " + (i + 1) + " after one window").isEqualTo(i < 10);
                assertThat(a.decisions().get(0).remaining()).as(a.decisions() + " " + windowed.stats()).isEqualTo(i < 10 ? 9 - i : 0);
            }
        }
    }
}
