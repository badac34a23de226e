package io.sluice.redisson;

import io.sluice.rule.RuleParser;
import io.sluice.spi.BackendContract;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.RedisCluster;
import io.sluice.testing.RedisYaml;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The backend contract on a real 3-master Redis Cluster, through a client built from Redisson's own
 * cluster YAML ({@code sluice.redis.config}): every script's keys must sit in one slot.
 */
class RedissonBackendClusterIT extends BackendContract {
    private static RedissonClient redisson;

    @BeforeAll
    static void connect() {
        String yaml = RedisYaml.file(RedisCluster.shared().yaml());
        redisson = RedissonClients.create(RuleParser.parse(Map.of("sluice.redis.config", yaml)).settings(), null);
    }

    @AfterAll
    static void disconnect() {
        if (redisson != null) redisson.shutdown();
    }

    @Override
    protected LimiterBackend backend(MutableClock clock) {
        // The contract moves time: the algorithms on Redis TIME take this clock's instead.
        return RedissonBackend.onCallerClock(redisson, clock, Duration.ofSeconds(5));
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    @Test
    void redisTimeIsReadThroughAKeylessScriptOnACluster() {
        assertThat(RedisCluster.shared().masters()).hasSize(3);
        // serverTimeMillis() refuses to measure before the backend's first connection (it would count the
        // connecting as round-trip time); a decision waits for that connection, so make one first.
        consume(new RateRequest(key("connected"), 1, Duration.ofMinutes(1), 1));
        long now = System.currentTimeMillis();
        assertThat(backend.serverTimeMillis().toCompletableFuture().join()).isBetween(now - 60_000, now + 60_000);
    }
}
