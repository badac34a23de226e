package io.sluice.engine.rate;

import io.sluice.engine.KeyNaming;
import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.RuleSet;
import io.sluice.spi.RateOutcome;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ElasticCallTest {
    private final RateStepFixture f = new RateStepFixture();
    private final InMemoryBackend backend = new InMemoryBackend();

    private List<Boolean> admitted(RateCall call, RuleSet rules, int requests) {
        List<Boolean> allowed = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            RateAsk ask = f.ask(rules.get("r").orElseThrow(), "k", 1);
            RateCall.Sent sent = call.send(ask);
            RateOutcome o = ((RateAnswer.Answered) sent.answer().toCompletableFuture().join()).outcome();
            assertThat(sent.late().toCompletableFuture().join()).isEqualTo(o);
            allowed.add(o.allowed());
        }
        return allowed;
    }

    @Test
    void overItsNominalLimitARuleBorrowsFromItsCapacityRuleUntilItRunsOut() {
        RuleSet rules = RateStepFixture.rules("r.rate=2/1m", "r.throttling=elastic", "r.overage=1000%", "r.capacity=c", "c.rate=3/1m", "c.key=global");
        ElasticCall call = new ElasticCall(backend, backend, f.guard, new KeyNaming("t", backend), () -> rules);
        assertThat(admitted(call, rules, 6)).containsExactly(true, true, true, true, true, false);
    }

    @Test
    void aRuleThatNeverBorrowsHoldsItsNominalLimit() {
        RuleSet rules = RateStepFixture.rules("r.rate=2/1m", "r.throttling=elastic", "r.capacity=c", "r.mode=dry-run",
                "c.rate=3/1m", "c.key=global");
        ElasticCall call = new ElasticCall(backend, backend, f.guard, new KeyNaming("t", backend), null);
        assertThat(admitted(call, rules, 3)).containsExactly(true, true, false);
    }
}
