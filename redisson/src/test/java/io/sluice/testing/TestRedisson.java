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
        return client(TestRedis.address());
    }

    /** A Redisson client of its own on the Redis at {@code address}, with Redisson's defaults; the caller shuts it down. */
    public static RedissonClient client(String address) {
        Config config = new Config();
        config.useSingleServer().setAddress(address);
        return Redisson.create(config);
    }
}
