package io.sluice.examples.quarkus;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.sluice.testing.TestRedis;

import java.util.Map;
import java.util.UUID;

/** Starts the tests' Redis and points the example's rules at it, with counters of this run's own. */
public class TestRedisResource implements QuarkusTestResourceLifecycleManager {
    @Override
    public Map<String, String> start() {
        System.setProperty("SLUICE_REDIS_ADDRESS", TestRedis.address());
        System.setProperty("SLUICE_KEY_PREFIX", "sluice-quarkus-test-" + UUID.randomUUID());
        return Map.of();
    }

    @Override
    public void stop() {
        System.clearProperty("SLUICE_REDIS_ADDRESS");
        System.clearProperty("SLUICE_KEY_PREFIX");
    }
}
