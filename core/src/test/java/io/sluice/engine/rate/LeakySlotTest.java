package io.sluice.engine.rate;

import io.sluice.Decision;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class LeakySlotTest {
    private final Decision admitted = Decision.allowed(RateStepFixture.rule("rate=5/1m", "algorithm=leaky-bucket"),
            Decision.Kind.RATE, 5, 2, Duration.ZERO);

    @Test
    void theDecisionCompletesAtItsSlot() {
        List<Runnable> tasks = new ArrayList<>();
        List<Long> delays = new ArrayList<>();
        LeakySlot slot = new LeakySlot((task, millis) -> {
            tasks.add(task);
            delays.add(millis);
            return true;
        });
        CompletableFuture<Decision> d = slot.at(admitted, 250).toCompletableFuture();
        assertThat(d).isNotDone();
        assertThat(delays).containsExactly(250L);
        tasks.get(0).run();
        assertThat(d.join()).isSameAs(admitted);
    }

    @Test
    void anEngineThatCannotScheduleAnyMoreCompletesItAtOnce() {
        LeakySlot slot = new LeakySlot((task, millis) -> false);
        assertThat(slot.at(admitted, 250).toCompletableFuture().join()).isSameAs(admitted);
    }
}
