package io.sluice.micrometer;

import io.sluice.Sluice;
import io.sluice.testing.TestRedis;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The meters on a real Redis. {@code sluice.await-backend} makes {@code build()} return connected, so no probe
 * decision (which would count) is needed; a generous backend timeout keeps a loaded machine from turning a
 * decision into a backend failure; a key prefix per engine keeps the tests' counters apart.
 */
class RedisMetersTest extends MetersContract {
    @Override
    Sluice.Builder builder(Map<String, String> properties) {
        Map<String, String> p = new HashMap<>(properties);
        p.put("sluice.redis.address", TestRedis.address());
        p.put("sluice.await-backend", "60s");
        p.put("sluice.backend-timeout", "5s");
        p.put("sluice.key-prefix", "meters-" + UUID.randomUUID());
        return Sluice.builder().properties(p);
    }
}
