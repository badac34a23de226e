package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The divisor of {@code on-backend-failure=local} on real Redis: each engine announces itself in the sorted set
 * {@code <prefix>:servers} and reads how many are alive; an id not heard from for three heartbeats is dropped; the set
 * expires when nobody announces. Fast: no fault, a Redis of its own.
 */
@Timeout(120)
class LiveServersOnRedisTest {
    @Test
    void threeEnginesSharingOneRedisEachCountThree() {
        try (RedisProcess redis = RedisProcess.start()) {
            List<Sluice> engines = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    engines.add(Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                            "sluice.key-prefix", "shared", "sluice.on-backend-failure", "local",
                            "sluice.rules.login.rate", "20/1h")));
                }
                for (Sluice s : engines) Connected.await(s);
                // Each announces after the others: every count read from here on is 3.
                for (Sluice s : engines) EngineProbe.announce(s.engine()).join();
                for (Sluice s : engines) assertThat(EngineProbe.announce(s.engine()).join()).isEqualTo(3);
                for (Sluice s : engines) assertThat(EngineProbe.localDivisor(s.engine())).isEqualTo(3);

                // A server last heard from 16 s ago (past three 5 s heartbeats, on Redis time) no longer counts.
                long redisNowMillis = Long.parseLong(((List<?>) redis.command("TIME")).get(0).toString()) * 1000;
                redis.command("ZADD", "shared:servers", Long.toString(redisNowMillis - 16_000), "gone");
                redis.command("ZADD", "shared:servers", Long.toString(redisNowMillis - 5_000), "late");
                assertThat(EngineProbe.announce(engines.get(0).engine()).join()).as("three and the late one").isEqualTo(4);
                assertThat(redis.command("ZSCORE", "shared:servers", "gone")).isNull();
                long ttl = Long.parseLong(redis.command("PTTL", "shared:servers").toString());
                assertThat(ttl).isPositive().isLessThanOrEqualTo(15_000);
                // One member per engine, whatever it announced: random ids, never a key value.
                assertThat(Long.parseLong(redis.command("ZCARD", "shared:servers").toString())).isEqualTo(4);
            } finally {
                engines.forEach(Sluice::close);
            }
        }
    }
}
