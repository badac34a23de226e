package io.sluice.redisson;

import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;

/** For tests of other packages: a Redis backend whose scripts take the test's clock instead of Redis {@code TIME}. */
public final class CallerClockBackends {
    private CallerClockBackends() {
    }

    public static RedissonBackend on(RedissonClient redisson, Clock clock, Duration timeout) {
        return RedissonBackend.onCallerClock(redisson, clock, timeout);
    }

    /**
     * The acquires {@code backend} holds as waiters (their first try found no permit) and has not answered: a request
     * counted here is waiting, its acquire's deadline started.
     */
    public static int waiting(RedissonBackend backend) {
        return backend.waiting();
    }
}
