package io.sluice.testing;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson clients on the test Redis ({@link TestRedis#address()}). */
public final class TestRedisson {
    private TestRedisson() {
    }

    /** A Redisson client of its own on {@link TestRedis#address()}, with Redisson's defaults; the caller shuts it down. */
    public static RedissonClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestRedis.address());
        return Redisson.create(config);
    }
}
