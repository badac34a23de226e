package io.sluice.engine.rate;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class ShieldTest {
    private final RateStepFixture f = new RateStepFixture();
    private final Shield shield = new Shield(f.ticker);

    @Test
    void aKeyFarFromItsLimitIsNotRemembered() {
        RateAsk ask = f.ask(RateStepFixture.rule("rate=500/1m"), "k", 100);
        shield.learn(ask.request(), f.ticker.millis(), Long.MAX_VALUE, 70, 1_000, 64);
        assertThat(shield.screen(ask)).isNull();
        shield.learn(ask.request(), f.ticker.millis(), Long.MAX_VALUE, 50, 1_000, 64);
        assertThat(shield.screen(ask)).isNotNull();
    }

    @Test
    void whatItRemembersLastsTheShorterOfTheResetAndTheCap() {
        RateAsk ask = f.ask(RateStepFixture.rule("rate=5/1m"), "k", 1);
        shield.learn(ask.request(), f.ticker.millis(), 200, 0, 60_000, 64);
        assertThat(shield.screen(ask)).isNotNull();
        f.ticker.advance(Duration.ofMillis(200));
        assertThat(shield.screen(ask)).isNull();
    }

    @Test
    void aBatchUsesUpWhatRemainsInArrivalOrder() {
        var rule = RateStepFixture.rule("rate=5/1m");
        shield.learn(f.ask(rule, "k", 1).request(), f.ticker.millis(), Long.MAX_VALUE, 3, 60_000, 64);
        Shield.Batch batch = shield.batch("{k}");
        assertThat(batch.screen(f.ask(rule, "k", 2))).isNull();
        assertThat(batch.screen(f.ask(rule, "k", 2))).isEqualTo(new RateAnswer.Screened(1, 60_000));
        assertThat(batch.screen(f.ask(rule, "k", 1))).isNull();
        assertThat(batch.screen(f.ask(rule, "k", 1))).isNotNull();
        assertThat(batch.maxCost()).isEqualTo(2);
    }

    @Test
    void aLeakyBucketCountsEveryRequestAsOneAndANeverFittingCostIsLeftToTheBackend() {
        RateAsk leaky = f.ask(RateStepFixture.rule("rate=5/1m", "algorithm=leaky-bucket"), "k", 40);
        assertThat(Shield.cost(leaky.request())).isEqualTo(1);
        assertThat(Shield.shieldable(leaky.request())).isTrue();
        RateAsk huge = f.ask(RateStepFixture.rule("rate=5/1m"), "k", 6);
        assertThat(Shield.shieldable(huge.request())).isFalse();
    }
}
