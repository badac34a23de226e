package io.sluice.engine.rate;

import io.sluice.spi.RateOutcome;
import io.sluice.testing.CountingBackend;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class LanesTest {
    private final RateStepFixture f = new RateStepFixture();
    private final CountingBackend backend = new CountingBackend(Clock.systemUTC());
    private final Shield shield = new Shield(f.ticker);
    private final Lanes lanes = new Lanes(backend, backend, f.guard, shield);
    private final RateCall call = lanes.call(true, Long.MAX_VALUE);

    private static RateAnswer answer(RateCall.Sent sent) {
        return sent.answer().toCompletableFuture().join();
    }

    @Test
    void anIdleKeysRequestGoesAloneRequestsArrivingMeanwhileGoTogether() {
        var rule = RateStepFixture.rule("rate=100/1m");
        backend.hold();
        RateCall.Sent first = call.send(f.ask(rule, "k", 1));
        List<RateCall.Sent> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) queued.add(call.send(f.ask(rule, "k", 1)));
        assertThat(backend.calls).hasValue(1);
        backend.open();
        assertThat(answerOf(first).remaining()).isEqualTo(99);
        for (RateCall.Sent s : queued) assertThat(answerOf(s).allowed()).isTrue();
        assertThat(backend.batches).containsExactly(3);
        assertThat(answerOf(queued.get(2)).remaining()).isEqualTo(96);
        assertThat(queued.get(2).late().toCompletableFuture().join().remaining()).isEqualTo(96);
    }

    private static RateOutcome answerOf(RateCall.Sent sent) {
        return ((RateAnswer.Answered) answer(sent)).outcome();
    }

    @Test
    void queuedRequestsTheShieldNowKnowsWillBeRejectedAreAnsweredUnsent() {
        var rule = RateStepFixture.rule("rate=2/1m");
        backend.hold();
        RateCall.Sent first = call.send(f.ask(rule, "k", 1));
        RateCall.Sent second = call.send(f.ask(rule, "k", 1));
        RateCall.Sent third = call.send(f.ask(rule, "k", 1));
        RateCall.Sent fourth = call.send(f.ask(rule, "k", 1));
        backend.open();
        assertThat(answerOf(first).remaining()).isEqualTo(1);
        // The first answer left 1: the shield lets one more go and answers the rest itself.
        assertThat(answerOf(second).allowed()).isTrue();
        assertThat(answer(third)).isInstanceOf(RateAnswer.Screened.class);
        assertThat(answer(fourth)).isEqualTo(new RateAnswer.Screened(0, ((RateAnswer.Screened) answer(third)).millisLeft()));
        assertThat(third.late().toCompletableFuture()).as("never sent").isNotDone();
        assertThat(backend.calls).as("the second went alone").hasValue(2);
        assertThat(backend.batches).isEmpty();
    }

    @Test
    void requestsQueuedBehindAFailedCallFailWithItUnsent() {
        var rule = RateStepFixture.rule("rate=100/1m");
        backend.silent.set(true);
        RateCall.Sent first = call.send(f.ask(rule, "k", 1));
        RateCall.Sent behind = call.send(f.ask(rule, "k", 1));
        f.pastDeadline();
        assertThat(first.answer().toCompletableFuture()).isCompletedExceptionally();
        CompletableFuture<RateAnswer> b = behind.answer().toCompletableFuture();
        assertThat(b).isCompletedExceptionally();
        assertThat(backend.calls).hasValue(1);
    }

    @Test
    void anUnshieldedRulesQueuedRequestsAreAllSent() {
        RateCall soft = lanes.call(false, Long.MAX_VALUE);
        var rule = RateStepFixture.rule("rate=1/1m");
        backend.hold();
        soft.send(f.ask(rule, "k", 1));
        RateCall.Sent second = soft.send(f.ask(rule, "k", 1));
        RateCall.Sent third = soft.send(f.ask(rule, "k", 1));
        backend.open();
        assertThat(answer(second)).isInstanceOf(RateAnswer.Answered.class);
        assertThat(answer(third)).isInstanceOf(RateAnswer.Answered.class);
        assertThat(backend.batches).containsExactly(2);
    }
}
