package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.redisson.CallerClockBackend;
import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Engines on a real Redis whose every clock, their scripts' included, is the test's: for tests that move time by hand.
 * A test class registers one ({@code @RegisterExtension static final CallerClockEngine engines = new
 * CallerClockEngine(1);}): one Redisson client for the class (a {@link TestRedissonClient}), and before each test a
 * clock of its own at the given milliseconds past the start of the current hour (so windows of whole seconds start at
 * whole seconds from it) and keys under a prefix of its own.
 */
final class CallerClockEngine implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    static final long HOUR = 3_600_000L;
    private final long pastTheHour;
    private final TestRedissonClient redis = new TestRedissonClient();
    private MutableClock clock;
    private long hour;
    private String prefix;

    /** @param pastTheHour where each test's clock starts: milliseconds past the start of the current hour */
    CallerClockEngine(long pastTheHour) {
        this.pastTheHour = pastTheHour;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        redis.beforeAll(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        redis.afterAll(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        hour = System.currentTimeMillis() / HOUR * HOUR;
        clock = new MutableClock(hour + pastTheHour);
        prefix = "cc" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** An engine with rule properties given as name, value pairs. */
    Sluice build(String... props) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", prefix);
        // A busy machine: no call may miss its deadline (a refund past it would still be in flight).
        p.put("sluice.backend-timeout", "30s");
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        return Sluice.builder().properties(p).backend(CallerClockBackend.of(redis.client(), clock)).clock(clock).ticker(clock).build();
    }

    /**
     * This test's clock at {@code millis} past the hour, every stock of {@code s} whose hold ends on the way handed back
     * by its sweep, as a running server's would be.
     */
    void at(long millis, Sluice s) {
        long target = hour + millis;
        while (true) {
            long next = EngineProbe.nextHoldEnd(s.engine());
            if (next > target) break;
            if (next > clock.millis()) clock.advance(Duration.ofMillis(next - clock.millis()));
            EngineProbe.sweep(s.engine()).join();
        }
        clock.advance(Duration.ofMillis(target - clock.millis()));
    }

    /** This test's clock. */
    MutableClock clock() {
        return clock;
    }

    /** The start of the hour this test's clock started in. */
    long hour() {
        return hour;
    }

    /** The key prefix of this test's engines. */
    String prefix() {
        return prefix;
    }

    /** The class's client on the test Redis. */
    RedissonClient redisson() {
        return redis.client();
    }

    /** One request of {@code key} under rule {@code rule}, as the engine answers it. */
    static Admission admit(Sluice s, String rule, String key) {
        Rule r = s.rules().get(rule).orElseThrow();
        return s.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join();
    }

    /** As {@link #admit}, returning once the calls and hand-backs it started (a prefetching rule's) have landed. */
    static Admission admitSettled(Sluice s, String rule, String key) {
        Admission a = admit(s, rule, key);
        EngineProbe.settled(s.engine(), s.rules().get(rule).orElseThrow(), key).join();
        return a;
    }

    /** The Remaining an admission or rejection reports. */
    static long remaining(Admission a) {
        return a.allowed() ? a.headline().orElseThrow().remaining() : a.rejection().orElseThrow().remaining();
    }
}
