package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedisson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's late give-back of a sliding log, through the whole engine on a real Redis, time injected: permits given
 * back when a request ends (its rule's {@code count} does not count how it ended) are the request's own log entry,
 * not the newest, which a later request took meanwhile. Were the later one freed, the window holding it would admit
 * one more than the limit.
 */
class LateRefundOnRedisTest {
    private static final long HOUR = 3_600_000L;
    private static RedissonClient redisson;
    private final MutableClock clock = new MutableClock(System.currentTimeMillis() / HOUR * HOUR + 1);
    private final String prefix = "lr" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void connect() {
        redisson = TestRedisson.client();
    }

    @AfterAll
    static void disconnect() {
        redisson.shutdown();
    }

    private Sluice sluice(String... props) {
        return CallerClockEngine.build(redisson, clock, prefix, props);
    }

    private static Admission admit(Sluice s, String key) {
        Rule r = s.rules().get("login").orElseThrow();
        return s.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join();
    }

    private static long remaining(Admission a) {
        return a.headline().orElseThrow().remaining();
    }

    /**
     * rate=3/10s counting failures only: A at 0 s, B at 5 s, A's success at 5 s gives its permit back. At 10.5 s A's
     * entry would have left anyway and B's counts until 15 s: exactly 2 more are admitted (Remaining 1, then 0), the
     * third is rejected until 15 s.
     */
    @Test
    void aSuccessGivenBackLateFreesItsOwnPermitNotALaterRequests() {
        try (Sluice s = sluice("sluice.rules.login.rate", "3/10s", "sluice.rules.login.algorithm", "sliding-log",
                "sluice.rules.login.count", "failure")) {
            Admission a = admit(s, "alice");
            assertThat(a.allowed()).isTrue();
            assertThat(remaining(a)).isEqualTo(2);
            clock.advance(Duration.ofSeconds(5));
            Admission b = admit(s, "alice");
            assertThat(b.allowed()).isTrue();
            assertThat(remaining(b)).isEqualTo(1);
            b.end(Ending.status(401)).toCompletableFuture().join();
            a.end(Ending.status(200)).toCompletableFuture().join();
            clock.advance(Duration.ofMillis(5500));
            Admission first = admit(s, "alice");
            assertThat(first.allowed()).isTrue();
            assertThat(remaining(first)).as("B's permit counts until 15 s").isEqualTo(1);
            Admission second = admit(s, "alice");
            assertThat(second.allowed()).isTrue();
            assertThat(remaining(second)).isZero();
            Admission third = admit(s, "alice");
            assertThat(third.allowed()).as("3 in the window from 5 s to 15 s").isFalse();
            assertThat(third.rejection().orElseThrow().remaining()).isZero();
            assertThat(third.rejection().orElseThrow().retryAfter()).isEqualTo(Duration.ofMillis(4500));
            clock.advance(Duration.ofMillis(4500));
            Admission after = admit(s, "alice");
            assertThat(after.allowed()).as("B's permit left at 15 s").isTrue();
            assertThat(remaining(after)).isZero();
        }
    }
}
