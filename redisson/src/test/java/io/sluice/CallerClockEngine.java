package io.sluice;

import io.sluice.redisson.CallerClockBackend;
import io.sluice.testing.MutableClock;
import org.redisson.api.RedissonClient;

import java.util.HashMap;
import java.util.Map;

/** An engine on a real Redis whose every clock, its scripts' included, is the test's: for tests that move time by hand. */
final class CallerClockEngine {
    private CallerClockEngine() {
    }

    /** An engine under {@code prefix} with rule properties given as name, value pairs. */
    static Sluice build(RedissonClient redisson, MutableClock clock, String prefix, String... props) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", prefix);
        // A busy machine: no call may miss its deadline (a refund past it would still be in flight).
        p.put("sluice.backend-timeout", "30s");
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        return Sluice.builder().properties(p).backend(CallerClockBackend.of(redisson, clock)).clock(clock).ticker(clock).build();
    }
}
