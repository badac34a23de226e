package io.sluice.engine.rate;

import io.sluice.rule.Rule;
import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a late admission gives back once its request was denied meanwhile, rule by rule. */
class LateUndoTest {
    private static final RateOutcome WITHIN = new RateOutcome(true, 3, 1000, 0);
    private static final RateOutcome OVER = new RateOutcome(true, 0, 1000, 0, 0, true);

    private static Rule rule(String algorithm, String throttling) {
        return RateStepFixture.rules("r.rate=10/1m", "r.algorithm=" + algorithm, "r.throttling=" + throttling,
                "c.rate=100/1m", "c.key=global").get("r").orElseThrow();
    }

    private static Rule elastic(String algorithm) {
        return RateStepFixture.rules("r.rate=10/1m", "r.algorithm=" + algorithm, "r.throttling=elastic",
                "r.capacity=c", "c.rate=100/1m", "c.key=global").get("r").orElseThrow();
    }

    @Test
    void hardAndSoftRulesGiveBackTheirOwnPermits() {
        for (String algorithm : new String[] {"sliding-log", "token-bucket", "fixed-window", "sliding-window"}) {
            assertThat(LateUndo.of(rule(algorithm, "hard"), WITHIN)).as(algorithm).isEqualTo(LateUndo.OWN);
            assertThat(LateUndo.of(rule(algorithm, "soft"), OVER)).as(algorithm).isEqualTo(LateUndo.OWN);
        }
    }

    @Test
    void aLeakyBucketGivesBackOnlyASlotItsAnswerNamed() {
        assertThat(LateUndo.of(rule("leaky-bucket", "hard"), WITHIN.withEntry(new Entry.SlotEnd(1_700_000_000_000L)))).isEqualTo(LateUndo.SLOT);
        assertThat(LateUndo.of(rule("leaky-bucket", "hard"), WITHIN)).isEqualTo(LateUndo.KEEP);
    }

    @Test
    void anElasticRuleGivesBackWhatItsAnswerTells() {
        for (String algorithm : new String[] {"sliding-log", "fixed-window", "sliding-window"}) {
            assertThat(LateUndo.of(elastic(algorithm), WITHIN)).as(algorithm).isEqualTo(LateUndo.OWN);
            assertThat(LateUndo.of(elastic(algorithm), OVER)).as(algorithm).isEqualTo(LateUndo.OWN_AND_CAPACITY);
        }
        assertThat(LateUndo.of(elastic("token-bucket"), WITHIN)).isEqualTo(LateUndo.OWN);
        assertThat(LateUndo.of(elastic("token-bucket"), OVER)).as("what it borrowed is not said").isEqualTo(LateUndo.KEEP);
    }
}
