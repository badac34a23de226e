package io.sluice.cdi;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.testing.AlgorithmCases;
import io.sluice.testing.AlgorithmCases.Case;
import io.sluice.testing.AlgorithmCases.Mode;
import io.sluice.testing.AlgorithmCases.Range;
import io.sluice.testing.AlgorithmCases.Times;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Exact counts through the interceptor in Weld SE on a real Redis, for every algorithm under every throttling mode
 * ({@link AlgorithmCases}), for {@link LimitCost} and {@link KeySource#withCost}, never-fitting costs, and a leaky
 * bucket's queue (a {@code CompletionStage} caller holds no thread; a synchronous one waits). Each case boots a
 * container whose rule {@code case} is that case's.
 */
class AlgorithmsInterceptorTest {

    @ApplicationScoped
    public static class Metered {
        @Limited("case")
        public String call(@LimitKey String user) {
            return user;
        }

        @Limited("case")
        public String costly(@LimitKey String user, @LimitCost long cost) {
            return user;
        }

        @Limited("case")
        public String pages(@LimitKey String user, @LimitCost Integer pages) {
            return user;
        }

        @Limited("case")
        public CompletableFuture<String> later(@LimitKey String user) {
            return CompletableFuture.completedFuture(user);
        }
    }

    static List<Case> cases() {
        return AlgorithmCases.all();
    }

    /** A container whose rule {@code case} has these properties (written for rule {@code from}). */
    private static WeldContainer boot(String from, List<String> properties) {
        List<String> lines = properties.stream().map(l -> l.replace("sluice.rules." + from + ".", "sluice.rules.case.")).toList();
        return CdiTesting.boot(CdiTesting.rulesFile(lines.toArray(String[]::new)), Metered.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void admitsExactlyItsLimitThenThrowsWithTheRetryAfter(Case c) {
        try (WeldContainer container = boot(c.rule(), c.properties(null, "user"))) {
            Metered metered = container.select(Metered.class).get();
            String user = "u-" + UUID.randomUUID();
            Times times = new Times();
            List<Object> outcomes = new ArrayList<>();
            for (int i = 0; i <= c.admitted(); i++) outcomes.add(times.measure(() -> callOrRejection(() -> metered.call(user))));
            assumeTrue(times.oneWindow(), "the test ran across a day boundary of the windows");
            for (int k = 0; k < c.admitted(); k++) assertThat(outcomes.get(k)).as(c + " call " + (k + 1)).isEqualTo(user);
            assertThat(outcomes.get(c.admitted())).as(c + " rejected").isInstanceOfSatisfying(LimitExceededException.class, e -> {
                Range expected = c.retryAfter(times).atLeastOne();
                assertThat(e.rule()).isEqualTo("case");
                assertThat(e.limit()).isEqualTo(AlgorithmCases.LIMIT);
                assertThat(e.remaining()).isZero();
                assertThat(e.retryAfter().toSeconds()).as("retry after, expected " + expected).matches(expected::contains);
            });
            if (c.mode() == Mode.ELASTIC) {
                String other = "v-" + UUID.randomUUID();
                for (int k = 0; k < AlgorithmCases.LIMIT; k++) assertThat(metered.call(other)).isEqualTo(other);
                assertThatThrownBy(() -> metered.call(other)).as("the capacity rule has nothing left to lend")
                        .isInstanceOf(LimitExceededException.class);
            }
        }
    }

    /**
     * 4/1d: {@code @LimitCost} 3, then 1, then nothing fits; a call costing 5 can never fit; a cost below 1 is
     * refused before any rule counts it; {@code withCost} from code charges the same counter.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void limitCostAndWithCostChargeTheirValue(String algorithm) {
        try (WeldContainer container = boot("case", List.of("sluice.rules.case.rate=4/1d", "sluice.rules.case.key=user",
                "sluice.rules.case.algorithm=" + algorithm))) {
            Metered metered = container.select(Metered.class).get();
            Sluice sluice = container.select(Sluice.class).get();
            Rule rule = sluice.rules().get("case").orElseThrow();
            String alice = "a-" + UUID.randomUUID();
            assertThat(metered.costly(alice, 3)).isEqualTo(alice);
            assertThat(metered.pages(alice, 1)).isEqualTo(alice);
            assertThatThrownBy(() -> metered.costly(alice, 1)).isInstanceOf(LimitExceededException.class);

            assertThatThrownBy(() -> metered.costly(alice, 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("@LimitCost parameter 2 of " + Metered.class.getName() + ".costly is 0: expected the permits"
                            + " the call takes, at least 1");
            assertThatThrownBy(() -> metered.pages(alice, null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is null");

            String bob = "b-" + UUID.randomUUID();
            assertThatThrownBy(() -> metered.costly(bob, 5)).isInstanceOfSatisfying(LimitExceededException.class, e -> {
                assertThat(e).hasMessage("Rule 'case' can never admit this call: it costs 5 permits, more than the rule ever admits");
                assertThat(e.retryAfter()).as("the rule's period").isEqualTo(Duration.ofDays(1));
                assertThat(e.decision().orElseThrow().neverFits()).isTrue();
            });
            // The never-fitting call took nothing: bob's whole limit is there, for code that charges with withCost.
            Admission three = admit(sluice, rule, KeySource.fixed(bob).withCost(3));
            assertThat(three.allowed()).isTrue();
            assertThat(three.headline().orElseThrow().remaining()).isEqualTo(1);
            assertThat(admit(sluice, rule, KeySource.fixed(bob).withCost(1)).headline().orElseThrow().remaining()).isZero();
            assertThatThrownBy(() -> metered.costly(bob, 1)).as("one counter for @LimitCost and withCost")
                    .isInstanceOf(LimitExceededException.class);
        }
    }

    /**
     * Issue 21: {@code @LimitCost} 2 000 000 000 on {@code 1/1d}. Each call is a never-fits rejection decided before
     * Redis (before: a leaky bucket admitted 20 of 20 as backend failures and opened the breaker for every rule); the
     * breaker stays closed, an unrelated {@code 1/1h} rule admits exactly 1 of 3, and a call of cost 1 still fits.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "leaky-bucket", "fixed-window", "sliding-window"})
    void aHugeLimitCostIsRejectedBeforeRedisAndBreaksNothing(String algorithm) {
        try (WeldContainer container = boot("case", List.of("sluice.rules.case.rate=1/1d", "sluice.rules.case.key=user",
                "sluice.rules.case.algorithm=" + algorithm, "sluice.rules.other.rate=1/1h"))) {
            Metered metered = container.select(Metered.class).get();
            Sluice sluice = container.select(Sluice.class).get();
            String mallory = "m-" + UUID.randomUUID();
            for (int i = 0; i < 20; i++) {
                assertThatThrownBy(() -> metered.costly(mallory, 2_000_000_000L)).isInstanceOfSatisfying(
                        LimitExceededException.class, e -> assertThat(e.decision().orElseThrow().neverFits()).isTrue());
            }
            Rule other = sluice.rules().get("other").orElseThrow();
            String alice = "a-" + UUID.randomUUID();
            int admitted = 0;
            for (int i = 0; i < 3; i++) if (admit(sluice, other, KeySource.fixed(alice)).allowed()) admitted++;
            assertThat(admitted).isEqualTo(1);
            assertThat(sluice.stats().failedOpen()).isZero();
            assertThat(sluice.stats().circuitOpenSkips()).isZero();
            assertThat(metered.costly(mallory, 1)).isEqualTo(mallory);
        }
    }

    private static Admission admit(Sluice sluice, Rule rule, KeySource keys) {
        return sluice.admit(List.of(rule), keys).toCompletableFuture().join();
    }

    /**
     * A leaky bucket of one slot per 2 s and a queue of 2: five asynchronous calls at once get a stage each at once;
     * one runs now, two when their slots come, two fail at once. A synchronous caller waits for its slot.
     */
    @Test
    void aLeakyBucketQueueDelaysStagesWithoutAThreadAndMakesASynchronousCallerWait() {
        try (WeldContainer container = boot("case", List.of("sluice.rules.case.rate=5/10s", "sluice.rules.case.key=user",
                "sluice.rules.case.algorithm=leaky-bucket", "sluice.rules.case.queue=2"))) {
            Metered metered = container.select(Metered.class).get();
            String user = "q-" + UUID.randomUUID();
            long sent = System.nanoTime();
            List<CompletableFuture<String>> stages = new ArrayList<>();
            for (int i = 0; i < 5; i++) stages.add(metered.later(user));
            // A caller held until its slot would find every stage done; the last slot is two paces away.
            assertThat(stages).as("stages are returned before their slots").anyMatch(stage -> !stage.isDone());
            List<Long> admittedAt = new ArrayList<>();
            int rejected = 0;
            for (CompletableFuture<String> stage : stages) {
                try {
                    stage.join();
                    admittedAt.add((System.nanoTime() - sent) / 1_000_000);
                } catch (CompletionException e) {
                    assertThat(e.getCause()).isInstanceOf(LimitExceededException.class);
                    rejected++;
                }
            }
            assertThat(rejected).isEqualTo(2);
            assertThat(admittedAt).hasSize(3);
            admittedAt.sort(null);
            assertThat(admittedAt.get(2)).as("the second queued slot is two paces after the first").isGreaterThanOrEqualTo(3_995);

            String sync = "s-" + UUID.randomUUID();
            long before = System.nanoTime();
            metered.call(sync);
            assertThat(metered.call(sync)).isEqualTo(sync);
            // The first call's slot is after `before`; the second's a pace after it.
            assertThat((System.nanoTime() - before) / 1_000_000).as("waited for its slot").isGreaterThanOrEqualTo(1_995);
        }
    }

    private static Object callOrRejection(Supplier<String> call) {
        try {
            return call.get();
        } catch (LimitExceededException e) {
            return e;
        }
    }
}
