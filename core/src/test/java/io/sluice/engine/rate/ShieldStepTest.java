package io.sluice.engine.rate;

import io.sluice.engine.EngineListener;
import io.sluice.Decision;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class ShieldStepTest {
    private final RateStepFixture f = new RateStepFixture();
    private final Shield shield = new Shield(f.ticker);
    private final RateStepFixture.Below below = new RateStepFixture.Below();
    private final ShieldStep step = new ShieldStep(shield, f.listener, below);

    @Test
    void aKeyTheShieldKnowsNothingOfGoesBelow() {
        Decision d = step.decide(f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1)).toCompletableFuture().join();
        assertThat(d.allowed()).isTrue();
        assertThat(below.calls).hasValue(1);
        assertThat(f.sources).isEmpty();
    }

    @Test
    void aKeyKnownToHaveTooLittleLeftIsRejectedHereUntilItsReset() {
        var rule = RateStepFixture.rule("rate=5/1m");
        RateAsk ask = f.ask(rule, "k", 4);
        shield.learn(ask.request(), f.ticker.millis(), Long.MAX_VALUE, 3, 1_000, Lanes.MAX_BATCH);
        Decision d = step.decide(ask).toCompletableFuture().join();
        assertThat(d.rejects()).isTrue();
        assertThat(d.remaining()).isEqualTo(3);
        assertThat(f.sources).containsExactly(EngineListener.Source.SHIELD);
        // A cost within what remains is the backend's to decide.
        assertThat(step.decide(f.ask(rule, "k", 3)).toCompletableFuture().join().allowed()).isTrue();
        assertThat(below.calls).hasValue(1);
        f.ticker.advance(Duration.ofSeconds(1));
        assertThat(step.decide(ask).toCompletableFuture().join().allowed()).as("past the reset").isTrue();
    }

    @Test
    void whatTheShieldKnowsHoldsForOneLimitOnly() {
        RateAsk five = f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1);
        shield.learn(five.request(), f.ticker.millis(), Long.MAX_VALUE, 0, 1_000, Lanes.MAX_BATCH);
        assertThat(step.decide(five).toCompletableFuture().join().rejects()).isTrue();
        assertThat(step.decide(f.ask(RateStepFixture.rule("rate=50/1m"), "k", 1)).toCompletableFuture().join().allowed()).isTrue();
    }
}
