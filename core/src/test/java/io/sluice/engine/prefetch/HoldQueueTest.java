package io.sluice.engine.prefetch;

import io.sluice.engine.EngineScheduler;
import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The queue of holds: ended ones in the order they end, those not handed back yet kept for the next sweep. */
class HoldQueueTest {
    private static final RateRequest PERMIT = new RateRequest("k", 100, Duration.ofSeconds(1), 1);

    private final EngineScheduler scheduler = new EngineScheduler();
    private final HoldQueue holds = new HoldQueue(scheduler, () -> { });
    private final KeySlot slot = new KeySlot(new HandBacks(new InMemoryBackend(), key -> { }));

    @AfterEach
    void close() {
        scheduler.close();
    }

    private static Stock until(long until) {
        return new Stock(new Prefetch(new RateOutcome(true, 0, 0, 0), PERMIT, 1, 0, null), until - 100, until);
    }

    @Test
    void endedHoldsComeInOrderAndOnlyThoseEnded() {
        Stock late = until(300);
        Stock early = until(100);
        Stock same = until(100);
        holds.add("a", slot, late);
        holds.add("b", slot, early);
        holds.add("c", slot, same);
        assertThat(holds.nextEnd()).isEqualTo(100);
        List<String> seen = new ArrayList<>();
        holds.endedBy(99, h -> seen.add(h.key()));
        assertThat(seen).isEmpty();
        holds.endedBy(200, h -> seen.add(h.key()));
        assertThat(seen).containsExactly("b", "c");
        assertThat(holds.nextEnd()).isEqualTo(300);
    }

    @Test
    void aHoldNotHandedBackWaitsForTheNextSweep() {
        holds.add("a", slot, until(100));
        holds.endedBy(100, h -> false);
        assertThat(holds.nextEnd()).isEqualTo(100);
        List<String> seen = new ArrayList<>();
        holds.endedBy(100, h -> seen.add(h.key()));
        assertThat(seen).containsExactly("a");
        assertThat(holds.nextEnd()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void clearedHoldsAreForgotten() {
        holds.add("a", slot, until(100));
        holds.clear();
        assertThat(holds.nextEnd()).isEqualTo(Long.MAX_VALUE);
    }
}
