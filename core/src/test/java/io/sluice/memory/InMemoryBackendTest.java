package io.sluice.memory;

import io.sluice.spi.Algorithm;
import io.sluice.spi.BackendContract;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class InMemoryBackendTest extends BackendContract {
    private InMemoryBackend memory;

    @Override
    protected LimiterBackend backend(MutableClock clock) {
        memory = new InMemoryBackend(clock);
        return memory;
    }

    @Test
    void idleStateIsDroppedAfterItsPeriod() {
        consume(new RateRequest(key("idle"), 3, Duration.ofSeconds(2), 1));
        assertThat(memory.size()).isEqualTo(1);
        clock.advance(Duration.ofMillis(1999));
        assertThat(memory.size()).isEqualTo(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(memory.size()).isZero();
    }

    @Test
    void anAlgorithmsStateIsDroppedOnceItEqualsNoState() {
        // A token bucket of 3 per 2 s after one request is full again 2/3 s later.
        consume(RateRequest.of(Algorithm.TOKEN_BUCKET, key("idle-bucket"), 3, Duration.ofSeconds(2)));
        assertThat(memory.size()).isEqualTo(1);
        clock.advance(Duration.ofMillis(666));
        assertThat(memory.size()).isEqualTo(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(memory.size()).isZero();
    }
}
