package io.sluice;

import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedisson;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The engine measures this server's clock against Redis's TIME at start. */
class ClockSkewTest {

    @Test
    void aServerTenSecondsBehindRedisMeasuresAboutMinusTenSeconds() {
        RedissonClient redisson = TestRedisson.client();
        MutableClock behind = new MutableClock(System.currentTimeMillis() - 10_000);
        try (Sluice sluice = Sluice.builder().properties(Map.of("sluice.rules.r.rate", "1/1s"))
                .backend(RedissonBackendProvider.using(redisson)).clock(behind).build()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> sluice.clockSkew().isPresent());
            // The hand-held clock stands still while real time runs on, so allow for the seconds the test takes.
            assertThat(sluice.clockSkew().get().toMillis()).isBetween(-12_000L, -9_000L);
        } finally {
            redisson.shutdown();
        }
    }
}
