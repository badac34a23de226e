package io.sluice;

import io.sluice.rule.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static io.sluice.CallerClockEngine.admit;
import static io.sluice.CallerClockEngine.remaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's late give-back of a sliding log, through the whole engine on a real Redis, time injected: permits given
 * back when a request ends (its rule's {@code count} does not count how it ended) are the request's own log entry,
 * not the newest, which a later request took meanwhile. Were the later one freed, the window holding it would admit
 * one more than the limit.
 */
class LateRefundOnRedisTest {
    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(1);

    private Sluice sluice(String... props) {
        return engines.build(props);
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
            Admission a = admit(s, "login", "alice");
            assertThat(a.allowed()).isTrue();
            assertThat(remaining(a)).isEqualTo(2);
            engines.clock().advance(Duration.ofSeconds(5));
            Admission b = admit(s, "login", "alice");
            assertThat(b.allowed()).isTrue();
            assertThat(remaining(b)).isEqualTo(1);
            b.end(Ending.status(401)).toCompletableFuture().join();
            a.end(Ending.status(200)).toCompletableFuture().join();
            engines.clock().advance(Duration.ofMillis(5500));
            Admission first = admit(s, "login", "alice");
            assertThat(first.allowed()).isTrue();
            assertThat(remaining(first)).as("B's permit counts until 15 s").isEqualTo(1);
            Admission second = admit(s, "login", "alice");
            assertThat(second.allowed()).isTrue();
            assertThat(remaining(second)).isZero();
            Admission third = admit(s, "login", "alice");
            assertThat(third.allowed()).as("3 in the window from 5 s to 15 s").isFalse();
            assertThat(third.rejection().orElseThrow().remaining()).isZero();
            assertThat(third.rejection().orElseThrow().retryAfter()).isEqualTo(Duration.ofMillis(4500));
            engines.clock().advance(Duration.ofMillis(4500));
            Admission after = admit(s, "login", "alice");
            assertThat(after.allowed()).as("B's permit left at 15 s").isTrue();
            assertThat(remaining(after)).isZero();
        }
    }
}
