package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two {@code @Limited} methods sharing a rule, one calling the other: the rule counts once per call chain (the outer
 * call's admission covers the nested call on its thread), as the filter counts a rule once per request. Weld SE on
 * a real Redis.
 */
class NestedCallsTest {
    private static WeldContainer container;
    private static Outer outer;
    private static Inner inner;
    private static Sluice sluice;

    @BeforeAll
    static void boot() {
        container = CdiTesting.boot(CdiTesting.rulesFile(
                "sluice.rules.one.concurrency=1",
                "sluice.rules.one.key=global",
                "sluice.rules.async.concurrency=1",
                "sluice.rules.async.key=global",
                "sluice.rules.hourly.rate=10/1h",
                "sluice.rules.hourly.key=global"),
                Outer.class, Inner.class);
        outer = container.select(Outer.class).get();
        inner = container.select(Inner.class).get();
        sluice = container.select(Sluice.class).get();
    }

    @AfterAll
    static void shutdown() {
        if (container != null) container.shutdown();
    }

    @Test
    void aSharedConcurrencyOfOneAdmitsTheNestedCallAndFreesThePermitAfter() {
        assertThat(outer.holdingOne()).isEqualTo("outer(inner)");
        assertThat(free("one")).isEqualTo(1);
        // Outside the chain the rule counts again: a call of its own takes and returns the permit.
        assertThat(inner.one()).isEqualTo("inner");
        assertThat(free("one")).isEqualTo(1);
    }

    @Test
    void aSharedRateCountsEachOuterCallOnce() {
        int before = Inner.hourlyRuns.get();
        for (int i = 0; i < 10; i++) assertThat(outer.hourly()).as("outer call %d", i + 1).isEqualTo("outer(inner)");
        assertThatThrownBy(outer::hourly).isInstanceOfSatisfying(LimitExceededException.class, e -> {
            assertThat(e.rule()).isEqualTo("hourly");
            assertThat(e.limit()).isEqualTo(10);
            assertThat(e.remaining()).isZero();
        });
        assertThat(Inner.hourlyRuns.get() - before).as("nested calls that ran").isEqualTo(10);
        // Outside a chain, the rule is spent for everyone.
        assertThatThrownBy(inner::hourly).isInstanceOf(LimitExceededException.class);
    }

    @Test
    void aCompletionStageMethodCoversTheCallsItMakesWhileItRuns() {
        assertThat(outer.async().toCompletableFuture().join()).isEqualTo("outer(inner)");
        assertThat(free("async")).isEqualTo(1);
    }

    private static int free(String rule) {
        Rule r = sluice.rules().get(rule).orElseThrow();
        return sluice.availablePermits(r, KeyResolver.GLOBAL).toCompletableFuture().join();
    }

    @ApplicationScoped
    public static class Outer {
        @Inject
        Inner inner;

        @Limited("one")
        public String holdingOne() {
            return "outer(" + inner.one() + ")";
        }

        @Limited("hourly")
        public String hourly() {
            return "outer(" + inner.hourly() + ")";
        }

        @Limited("async")
        public CompletableFuture<String> async() {
            return CompletableFuture.completedFuture("outer(" + inner.async() + ")");
        }
    }

    @ApplicationScoped
    public static class Inner {
        static final AtomicInteger hourlyRuns = new AtomicInteger();

        @Limited("one")
        public String one() {
            return "inner";
        }

        @Limited("hourly")
        public String hourly() {
            hourlyRuns.incrementAndGet();
            return "inner";
        }

        @Limited("async")
        public String async() {
            return "inner";
        }
    }
}
