package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.CountingBackend;
import io.sluice.testing.ManualTicker;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The circuit breaker and the attack shield measure time on the monotonic ticker: the wall clock stepped back
 * an hour (NTP correcting a fast clock) or jumping an hour ahead changes neither the breaker's cool-down nor a
 * shielded key's retry-after. The wall clock and the ticker are moved separately, by hand.
 */
class MonotonicTimeTest {
    private static final Duration COOL_DOWN = Duration.ofSeconds(1);
    private final MutableClock wall = new MutableClock(1_700_000_000_000L);
    private final ManualTicker ticker = new ManualTicker();
    private final CountingBackend backend = new CountingBackend(wall);
    private final Sluice sluice = Sluice.builder()
            .properties(Map.of("sluice.rules.r.rate", "1/10s", "sluice.rules.open.rate", "1000/1h"))
            .backend(backend).clock(wall).ticker(ticker).build();

    @AfterEach
    void close() {
        sluice.close();
    }

    private Decision decide(String rule, String key) {
        Rule r = sluice.rules().get(rule).orElseThrow();
        return sluice.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join().decisions().get(0);
    }

    @ParameterizedTest(name = "wall clock moved {0} min while open")
    @ValueSource(ints = {-60, 60})
    void theBreakerProbesAfterItsCoolDownAndClosesWhateverTheWallClockDoes(int wallMinutes) {
        backend.down.set(true);
        for (int i = 0; i < 5; i++) assertThat(decide("open", "k").outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        int callsWhenOpened = backend.calls.get();
        assertThat(callsWhenOpened).isEqualTo(5);

        wall.advance(Duration.ofMinutes(wallMinutes));
        backend.down.set(false);
        ticker.advance(COOL_DOWN.minusMillis(1));
        assertThat(decide("open", "k").outcome()).as("still cooling down").isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        assertThat(backend.calls.get()).as("no call before the cool-down is over").isEqualTo(callsWhenOpened);

        ticker.advance(Duration.ofMillis(1));
        assertThat(decide("open", "k").outcome()).as("the probe").isEqualTo(Decision.Outcome.DECIDED);
        assertThat(backend.calls.get()).isEqualTo(callsWhenOpened + 1);
        // Closed: every decision goes to the backend again, with no further cool-down.
        for (int i = 0; i < 3; i++) assertThat(decide("open", "k").outcome()).isEqualTo(Decision.Outcome.DECIDED);
        assertThat(backend.calls.get()).isEqualTo(callsWhenOpened + 4);
        assertThat(sluice.stats().circuitOpenSkips()).isEqualTo(1);
    }

    @ParameterizedTest(name = "wall clock moved {0} min while shielded")
    @ValueSource(ints = {-60, 60})
    void aShieldedKeyIsAskedAgainAtItsRetryAfterWhateverTheWallClockDoes(int wallMinutes) {
        assertThat(decide("r", "hot").allowed()).isTrue();
        Decision shielded = decide("r", "hot");
        assertThat(shielded.allowed()).isFalse();
        assertThat(shielded.retryAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(backend.calls.get()).as("the rejection was answered by the shield").isEqualTo(1);

        wall.advance(Duration.ofMinutes(wallMinutes));
        ticker.advance(Duration.ofMillis(9_998));
        Decision stillShielded = decide("r", "hot");
        assertThat(stillShielded.allowed()).isFalse();
        assertThat(stillShielded.retryAfter()).isEqualTo(Duration.ofMillis(2));
        assertThat(backend.calls.get()).as("not asked before the retry-after").isEqualTo(1);

        // Asked again in the retry-after's last millisecond: answers round it up, so the permit may be free already.
        ticker.advance(Duration.ofMillis(1));
        decide("r", "hot");
        assertThat(backend.calls.get()).as("asked again at the retry-after").isEqualTo(2);
    }
}
