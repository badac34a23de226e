package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.EngineListener;
import io.sluice.Decision;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BreakerStepTest {
    private final RateStepFixture f = new RateStepFixture();
    private final RateStepFixture.Below below = new RateStepFixture.Below();
    private final BreakerStep step = new BreakerStep(f.guard, below);

    @Test
    void aClosedCircuitGoesBelow() {
        assertThat(step.decide(f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1)).toCompletableFuture().join().allowed()).isTrue();
        assertThat(below.calls).hasValue(1);
    }

    @Test
    void anOpenCircuitIsDecidedByTheFailurePolicyWithoutACall() {
        for (int i = 0; i < BackendGuard.FAILURES_BEFORE_OPEN; i++) f.guard.failed();
        Decision d = step.decide(f.ask(RateStepFixture.rule("rate=5/1m", "on-backend-failure=deny"), "k", 1)).toCompletableFuture().join();
        assertThat(d.rejects()).isTrue();
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        assertThat(below.calls).hasValue(0);
        assertThat(f.sources).containsExactly(EngineListener.Source.CIRCUIT_OPEN);
    }
}
