package io.sluice;

import io.sluice.redisson.CallerClockBackends;
import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sliding log on a test's clock keeps its permits however much real time passes at one instant of that clock
 * (seed 1 of {@link EngineMatchesModelTest}). Redis expires keys on its own real time; a test's clock does not follow
 * it: the model run spent seconds of real time watching requests wait on a concurrency rule while its clock moved
 * 95 ms. The log, kept alive one window after its last use, expired meanwhile, so the next request over its plan's
 * rate was admitted by a fresh log and then waited on the concurrency rule (the run saw no answer), where the
 * model rejected it by the rate rule.
 *
 * <p>Before the fix: the request after the real-time gap was admitted ({@code r} allowed with 0 remaining, then
 * {@code c} once the first request ended) instead of rejected by {@code r}.
 */
class SlidingLogOnTestTimeTest {
    /**
     * Real time that passes with the test's clock held still: more than a 1 s log lived after its last use before the
     * fix (its window plus an eighth). Not a window crossed: the test's clock never moves.
     */
    private static final long REAL_TIME_GAP_MILLIS = 1_500;
    /** A bound on an answer that has no reason to wait (the second request waits only on the first, which ends). */
    private static final long ANSWER_SECONDS = 10;
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();

    @Test
    void aRateRuleRejectsByItsLogAfterRealTimePassedAtOneInstant() throws Exception {
        MutableClock clock = MutableClock.startingNow();
        Map<String, String> props = new HashMap<>();
        props.put("sluice.key-prefix", "test-time-" + UUID.randomUUID().toString().substring(0, 8));
        props.put("sluice.backend-timeout", "1d");
        props.put("sluice.rules.r.algorithm", "sliding-log");
        props.put("sluice.rules.r.key", "user");
        props.put("sluice.rules.r.rate", "2/1s");
        props.put("sluice.rules.r.plan", "header:X-Plan");
        props.put("sluice.rules.r.plans.free.rate", "1/1s");
        props.put("sluice.rules.c.key", "user");
        props.put("sluice.rules.c.concurrency", "1");
        props.put("sluice.rules.c.wait", "30s");
        props.put("sluice.rules.c.lease", "1d");
        try (Sluice sluice = Sluice.builder().properties(props)
                .backend(CallerClockBackends.on(redis.client(), clock, Duration.ofSeconds(ANSWER_SECONDS)))
                .clock(clock).ticker(clock).build()) {
            List<Rule> rules = List.of(sluice.rules().get("r").orElseThrow(), sluice.rules().get("c").orElseThrow());
            Admission first = sluice.admit(rules, alice(null)).toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            assertThat(first.allowed()).isTrue();
            assertThat(first.decisions().get(0).remaining()).isEqualTo(1);

            Thread.sleep(REAL_TIME_GAP_MILLIS);
            // A free request (its plan's limit, 1, is not the one the shield heard of): decided by the log in Redis.
            var second = sluice.admit(rules, alice("free")).toCompletableFuture();
            first.close();
            Admission a = second.get(ANSWER_SECONDS, TimeUnit.SECONDS);

            assertThat(a.allowed()).as("the free request, its plan's one permit taken at this instant").isFalse();
            assertThat(a.decisions()).hasSize(1);
            Decision d = a.decisions().get(0);
            assertThat(d.ruleName()).isEqualTo("r");
            assertThat(d.outcome()).isEqualTo(Decision.Outcome.DECIDED);
            assertThat(d.limit()).isEqualTo(1);
            assertThat(d.remaining()).isZero();
            assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        }
    }

    private static KeySource alice(String plan) {
        return new KeySource() {
            @Override
            public String keyFor(Rule rule) {
                return "alice";
            }

            @Override
            public String planFor(Rule rule) {
                return plan;
            }
        };
    }
}
