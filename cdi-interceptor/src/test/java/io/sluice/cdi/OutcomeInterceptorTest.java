package io.sluice.cdi;

import io.sluice.LimitExceededException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code count} and settlements through {@code @Limited} in Weld SE on a real Redis: a call that throws (or whose stage
 * fails, at once or on another thread) is a failure, a normal return a success; a status list counts every call; the
 * application reports a call's actual cost to its {@link Settlement}, on the call's thread or from its stage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutcomeInterceptorTest {
    private WeldContainer container;

    @ApplicationScoped
    public static class Login {
        @Limited("login")
        public String login(@LimitKey String user, boolean right) {
            if (!right) throw new SecurityException("wrong password");
            return "welcome";
        }

        @Limited("login")
        public CompletableFuture<String> loginLater(@LimitKey String user, boolean right) {
            return right ? CompletableFuture.completedFuture("welcome") : CompletableFuture.failedFuture(new SecurityException("wrong"));
        }

        @Limited("login")
        public CompletionStage<String> loginElsewhere(@LimitKey String user, boolean right) {
            return CompletableFuture.supplyAsync(() -> {
                if (!right) throw new SecurityException("wrong");
                return "welcome";
            });
        }

        @Limited("listed")
        public String listed(@LimitKey String user) {
            return "ok";
        }
    }

    @ApplicationScoped
    public static class Llm {
        @Limited("llm")
        public String ask(@LimitKey String customer, long tokens) {
            Settlement.current().report(tokens);
            return "answer";
        }

        @Limited("llm")
        public CompletableFuture<String> askLater(@LimitKey String customer, long tokens) {
            Settlement settlement = Settlement.current();
            return CompletableFuture.supplyAsync(() -> {
                settlement.report("llm", tokens);
                return "answer";
            });
        }

        @Limited("login")
        public String wrongRule(@LimitKey String customer) {
            Settlement.current().report("login", 3);
            return "never";
        }
    }

    @BeforeAll
    void boot() {
        container = CdiTesting.boot(CdiTesting.rulesFile(
                "sluice.rules.login.rate=5/15m", "sluice.rules.login.count=failure",
                "sluice.rules.listed.rate=3/1h", "sluice.rules.listed.count=401,403",
                "sluice.rules.llm.rate=20000/366d", "sluice.rules.llm.algorithm=fixed-window", "sluice.rules.llm.cost=1000"),
                Login.class, Llm.class);
    }

    @AfterAll
    void shutdown() {
        if (container != null) container.close();
    }

    private static Object outcome(Supplier<Object> call) {
        try {
            Object v = call.get();
            return v instanceof CompletionStage<?> s ? s.toCompletableFuture().join() : v;
        } catch (CompletionException e) {
            return e.getCause().getClass();
        } catch (RuntimeException e) {
            return e.getClass();
        }
    }

    private void fiveFailuresThenRejected(java.util.function.BiFunction<String, Boolean, Object> call) {
        String user = "u-" + UUID.randomUUID();
        for (int i = 0; i < 12; i++) assertThat(outcome(() -> call.apply(user, true))).as("success " + i).isEqualTo("welcome");
        for (int i = 1; i <= 5; i++) {
            assertThat(outcome(() -> call.apply(user, false))).as("failure " + i).isEqualTo(SecurityException.class);
            assertThat(outcome(() -> call.apply(user, true))).isEqualTo(i < 5 ? "welcome" : LimitExceededException.class);
        }
        assertThat(outcome(() -> call.apply(user, false))).isEqualTo(LimitExceededException.class);
    }

    @Test
    void aThrowingMethodCountsAReturningOneDoesNot() {
        Login login = container.select(Login.class).get();
        fiveFailuresThenRejected(login::login);
    }

    @Test
    void aFailedCompletionStageCountsACompletedOneDoesNot() {
        Login login = container.select(Login.class).get();
        fiveFailuresThenRejected(login::loginLater);
    }

    @Test
    void aStageFailingOnAnotherThreadCounts() {
        Login login = container.select(Login.class).get();
        fiveFailuresThenRejected(login::loginElsewhere);
    }

    @Test
    void aStatusListCountsEveryCall() {
        Login login = container.select(Login.class).get();
        String user = "l-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) assertThat(login.listed(user)).isEqualTo("ok");
        assertThatThrownBy(() -> login.listed(user)).isInstanceOf(LimitExceededException.class);
    }

    /** Estimated at 1 000, reporting 3 000, against 20 000: 7 calls admitted (the 7th on 18 000), the 8th rejected. */
    @Test
    void aCallReportsItsActualCost() {
        Llm llm = container.select(Llm.class).get();
        String customer = "c-" + UUID.randomUUID();
        for (int i = 1; i <= 7; i++) assertThat(llm.ask(customer, 3000)).as("call " + i).isEqualTo("answer");
        assertThatThrownBy(() -> llm.ask(customer, 3000)).isInstanceOfSatisfying(LimitExceededException.class,
                e -> assertThat(e.remaining()).isZero());
    }

    /** Reported from the stage on another thread: settled when the stage completes, before the caller sees it. */
    @Test
    void aStageReportsItsActualCostFromAnotherThread() {
        Llm llm = container.select(Llm.class).get();
        String customer = "s-" + UUID.randomUUID();
        for (int i = 1; i <= 7; i++) assertThat(llm.askLater(customer, 3000).join()).as("call " + i).isEqualTo("answer");
        assertThat(outcome(() -> llm.askLater(customer, 3000))).isEqualTo(LimitExceededException.class);
        // Below the estimate, the rest comes back: 40 calls reporting 0 are all admitted on another key (20 would fit otherwise).
        String other = "z-" + UUID.randomUUID();
        for (int i = 0; i < 40; i++) assertThat(llm.askLater(other, 0).join()).isEqualTo("answer");
    }

    @Test
    void aRuleThatCannotBeSettledIsRefusedWhereItIsReported() {
        Llm llm = container.select(Llm.class).get();
        assertThatThrownBy(() -> llm.wrongRule("w-" + UUID.randomUUID())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rule login cannot be settled: settle only with algorithm=token-bucket");
        assertThatThrownBy(Settlement::current).isInstanceOf(IllegalStateException.class);
    }
}
