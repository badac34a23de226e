package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.CountingBackend;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's late give-back of a sliding log, for permits this server's share took while the backend was down
 * ({@code on-backend-failure=local}), through the whole engine on a hand-driven clock: a request's success gives back
 * its own entry of the share's in-memory log, not the newest, which a later request took meanwhile.
 */
class LocalShareGiveBackTest {
    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private static Admission admit(Sluice s) {
        Rule r = s.rules().get("login").orElseThrow();
        return s.admit(List.of(r), KeySource.fixed("alice")).toCompletableFuture().join();
    }

    /**
     * {@code rate=3/10s} counting failures, the share the whole limit ({@code sluice.local-share=1}), the backend down:
     * A at 0 s, B at 5 s failing, A's success at 5 s. At 10.5 s B's permit still counts: exactly 2 admitted, the third
     * rejected; at 15 s B's has left. Before, A's give-back removed B's entry: 3 admitted at 10.5 s.
     */
    @Test
    void aShareDecidedPermitGivenBackLateFreesItsOwnEntry() {
        CountingBackend down = new CountingBackend(clock);
        down.down.set(true);
        Map<String, String> p = Map.of("sluice.local-share", "1",
                "sluice.rules.login.rate", "3/10s", "sluice.rules.login.algorithm", "sliding-log",
                "sluice.rules.login.count", "failure", "sluice.rules.login.on-backend-failure", "local");
        try (Sluice s = Sluice.builder().properties(p).backend(down).clock(clock).ticker(clock).build()) {
            Admission a = admit(s);
            assertThat(a.allowed()).isTrue();
            assertThat(a.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.FAILED_LOCAL);
            clock.advance(Duration.ofSeconds(5));
            Admission b = admit(s);
            assertThat(b.allowed()).isTrue();
            b.end(Ending.status(401)).toCompletableFuture().join();
            a.end(Ending.status(200)).toCompletableFuture().join();
            clock.advance(Duration.ofMillis(5_500));
            assertThat(admit(s).allowed()).isTrue();
            assertThat(admit(s).allowed()).isTrue();
            Admission third = admit(s);
            assertThat(third.allowed()).as("3 in the share's window from 5 s to 15 s").isFalse();
            assertThat(third.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.FAILED_LOCAL);
            clock.advance(Duration.ofMillis(4_500));
            assertThat(admit(s).allowed()).as("B's permit left at 15 s").isTrue();
            assertThat(admit(s).allowed()).as("the two of 10.5 s still count").isFalse();
        }
    }
}
