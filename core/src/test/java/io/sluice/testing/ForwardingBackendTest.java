package io.sluice.testing;

import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test helper forwards what its delegate says, including the refund's credit ({@code Refunding.refundCredited}): a
 * window counter's give-back by a window that has ended credits nothing, which the default (the whole cost) would hide
 * from the engine's prefetcher behind a forwarding backend.
 */
class ForwardingBackendTest {
    private static final long PERIOD = 10_000;

    @Test
    void aRefundByAnEndedWindowCreditsNothingThroughTheForwarder() {
        MutableClock clock = new MutableClock(PERIOD * 1_000);
        ForwardingBackend backend = new ForwardingBackend(new InMemoryBackend(clock));
        RateRequest r = RateRequest.of(Algorithm.FIXED_WINDOW, "fw:credited", 3, Duration.ofMillis(PERIOD));
        RateOutcome a = backend.tryConsume(r).toCompletableFuture().join();
        assertThat(a.entry()).as("an admitted window decision names its window").isNotNull();
        assertThat(backend.refundCredited(r, a.entry()).toCompletableFuture().join()).as("its own window").isEqualTo(1);
        RateOutcome b = backend.tryConsume(r).toCompletableFuture().join();
        clock.advance(Duration.ofMillis(PERIOD));
        assertThat(backend.refundCredited(r, b.entry()).toCompletableFuture().join()).as("its window is over").isZero();
    }
}
