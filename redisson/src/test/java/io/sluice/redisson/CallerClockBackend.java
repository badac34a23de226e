package io.sluice.redisson;

import io.sluice.spi.LimiterBackend;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;

/** For tests outside this package: the Redisson backend with every algorithm on the test's clock instead of Redis TIME. */
public final class CallerClockBackend {
    private CallerClockBackend() {
    }

    public static LimiterBackend of(RedissonClient redisson, Clock clock) {
        return RedissonBackend.onCallerClock(redisson, clock, Duration.ofSeconds(5));
    }
}
