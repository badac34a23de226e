package io.sluice.spring;

import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Limited} on Spring beans through Spring's own auto-proxying (no AspectJ), on an in-memory engine: exact
 * counts, exemptions, keys, costs, permits held by a stage, one count per call chain, and every mistake failing the
 * context's start. examples/spring-boot runs it on Redis over HTTP.
 */
class LimitedBeansTest {
    private static final Map<String, String> RULES = properties(
            "sluice.rules.exports.rate", "2/1h", "sluice.rules.exports.key", "global",
            "sluice.rules.per-user.rate", "1/1h",
            "sluice.rules.tokens.rate", "10/1h", "sluice.rules.tokens.key", "global",
            "sluice.rules.renders.concurrency", "1", "sluice.rules.renders.key", "global",
            "sluice.rules.logins.rate", "2/1h", "sluice.rules.logins.count", "failure",
            "sluice.rules.reports.rate", "1/1h", "sluice.rules.reports.exempt", "user:monitor");

    private static Map<String, String> properties(String... pairs) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) p.put(pairs[i], pairs[i + 1]);
        return p;
    }

    private ApplicationContextRunner runner(Class<?>... beans) {
        Sluice sluice = Sluice.builder().properties(RULES).inMemory().build();
        ApplicationContextRunner r = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, SluiceAutoConfiguration.class))
                .withBean(Sluice.class, () -> sluice);
        for (Class<?> b : beans) r = r.withBean(b);
        return r;
    }

    @Limited("exports")
    public static class Exports {
        public String export() {
            return "export";
        }

        @Limited({})
        public String preview() {
            return "preview";
        }

        @Limited("per-user")
        public String exportFor(@LimitKey String user) {
            return "export of " + user;
        }

        @Override
        public String toString() {
            return "Exports";
        }
    }

    public static class Tokens {
        @Limited("tokens")
        public long spend(@LimitCost int tokens) {
            return tokens;
        }
    }

    public static class Renders {
        @Limited("renders")
        public CompletionStage<String> render(CompletableFuture<String> done) {
            return done;
        }
    }

    public static class Logins {
        @Limited("logins")
        public String login(@LimitKey String user, boolean passwordRight) {
            if (!passwordRight) throw new SecurityException("wrong password");
            return "welcome " + user;
        }

        @Limited("logins")
        public CompletionStage<String> loginLater(@LimitKey String user, CompletableFuture<String> check) {
            return check;
        }
    }

    public static class Reports {
        @Limited("reports")
        public String report(@LimitKey String tenant) {
            return "report of " + tenant;
        }
    }

    public static class Outer {
        private final Exports exports;

        public Outer(Exports exports) {
            this.exports = exports;
        }

        @Limited("exports")
        public String exportTwice() {
            return exports.export() + exports.export();
        }
    }

    @Test
    void aClassLevelRuleCountsEachCallAndAMethodMayBeExempt() {
        runner(Exports.class).run(context -> {
            assertThat(context).hasNotFailed();
            Exports exports = context.getBean(Exports.class);
            assertThat(exports.export()).isEqualTo("export");
            assertThat(exports.export()).isEqualTo("export");
            assertThatThrownBy(exports::export).isInstanceOf(LimitExceededException.class)
                    .satisfies(e -> assertThat(((LimitExceededException) e).rule()).isEqualTo("exports"));
            for (int i = 0; i < 5; i++) assertThat(exports.preview()).isEqualTo("preview");
            assertThat(exports.toString()).isEqualTo("Exports");
        });
    }

    @Test
    void aLimitKeyParameterIsTheKeyAndALimitCostParameterTheCost() {
        runner(Exports.class, Tokens.class).run(context -> {
            Exports exports = context.getBean(Exports.class);
            assertThat(exports.exportFor("alice")).isEqualTo("export of alice");
            assertThat(exports.exportFor("bob")).isEqualTo("export of bob");
            assertThatThrownBy(() -> exports.exportFor("alice")).isInstanceOf(LimitExceededException.class);
            Tokens tokens = context.getBean(Tokens.class);
            assertThat(tokens.spend(7)).isEqualTo(7);
            assertThatThrownBy(() -> tokens.spend(4)).isInstanceOf(LimitExceededException.class);
            assertThat(tokens.spend(3)).isEqualTo(3);
            assertThatThrownBy(() -> tokens.spend(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expected the permits the call takes, at least 1");
        });
    }

    @Test
    void aStageHoldsItsConcurrencyPermitUntilItCompletes() {
        runner(Renders.class).run(context -> {
            Renders renders = context.getBean(Renders.class);
            CompletableFuture<String> first = new CompletableFuture<>();
            assertThat(renders.render(first)).isSameAs(first);
            assertThatThrownBy(() -> renders.render(new CompletableFuture<>())).isInstanceOf(LimitExceededException.class);
            first.complete("done");
            CompletableFuture<String> second = new CompletableFuture<>();
            assertThat(renders.render(second)).isSameAs(second);
            second.completeExceptionally(new IllegalStateException("render failed"));
            CompletableFuture<String> third = new CompletableFuture<>();
            assertThat(renders.render(third)).isSameAs(third);
        });
    }

    @Test
    void aCallInsideAnotherCallOfTheSameRuleCountsOnce() {
        runner(Exports.class, Outer.class).run(context -> {
            Outer outer = context.getBean(Outer.class);
            // One count for the chain: the two inner calls are covered by the outer call's admission.
            assertThat(outer.exportTwice()).isEqualTo("exportexport");
            assertThat(outer.exportTwice()).isEqualTo("exportexport");
            assertThatThrownBy(outer::exportTwice).isInstanceOf(LimitExceededException.class);
        });
    }

    @Test
    void countFailureKeepsOnlyFailedCallsPermitsAThrowOrAFailedStageBeingAFailure() {
        runner(Logins.class).run(context -> {
            Logins logins = context.getBean(Logins.class);
            // Successful logins give their permits back: never the limit used up.
            for (int i = 0; i < 5; i++) assertThat(logins.login("ada", true)).isEqualTo("welcome ada");
            assertThatThrownBy(() -> logins.login("ada", false)).isInstanceOf(SecurityException.class);
            CompletableFuture<String> failing = new CompletableFuture<>();
            logins.loginLater("ada", failing);
            failing.completeExceptionally(new SecurityException("wrong password"));
            // Two failures: the third call is rejected before it runs, whatever its password.
            assertThatThrownBy(() -> logins.login("ada", true)).isInstanceOf(LimitExceededException.class);
            assertThat(logins.login("grace", true)).isEqualTo("welcome grace");
        });
    }

    @Test
    void aLimitKeyCallIsStillExemptByWhoMakesItInTheRequestThisThreadServes() {
        runner(Reports.class).run(context -> {
            Reports reports = context.getBean(Reports.class);
            MockHttpServletRequest monitor = new MockHttpServletRequest("GET", "/reports");
            monitor.setUserPrincipal(() -> "monitor");
            RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(monitor));
            try {
                for (int i = 0; i < 3; i++) assertThat(reports.report("acme")).isEqualTo("report of acme");
            } finally {
                RequestContextHolder.resetRequestAttributes();
            }
            // Anyone else, or no request at all: the tenant's one report an hour.
            assertThat(reports.report("acme")).isEqualTo("report of acme");
            assertThatThrownBy(() -> reports.report("acme")).isInstanceOf(LimitExceededException.class);
        });
    }

    public static class Unknown {
        @Limited("nope")
        public void call() {
        }
    }

    public static class TwoKeys {
        @Limited("per-user")
        public void call(@LimitKey String a, @LimitKey String b) {
        }
    }

    public static class TextCost {
        @Limited("tokens")
        public void call(@LimitCost String cost) {
        }
    }

    @Test
    void everyMistakeFailsTheContextsStartNamingWhere() {
        runner(Unknown.class, TwoKeys.class, TextCost.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContainingAll(
                    "Sluice: 3 problem(s) with @Limited",
                    "@Limited on " + Unknown.class.getName() + ".call names unknown rule 'nope'; rules are: "
                            + "[exports, logins, per-user, renders, reports, tokens]",
                    "@LimitKey on 2 parameters of " + TwoKeys.class.getName() + ".call: expected at most one",
                    "@LimitCost on a parameter of type java.lang.String of " + TextCost.class.getName()
                            + ".call: expected an int or long parameter");
        });
    }

    @Test
    void withoutAutoProxyingALimitedBeanFailsTheStartRatherThanGoUnlimited() {
        runner(Exports.class).withPropertyValues("spring.aop.auto=false").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContaining("@Limited bean")
                    .hasMessageContaining("is not behind a proxy, so its calls would not be limited");
        });
    }

    @Test
    void aReloadCannotRemoveARuleABeanNames() {
        runner(Exports.class).run(context -> {
            Sluice sluice = context.getBean(Sluice.class);
            assertThatThrownBy(() -> sluice.reload(Map.of("sluice.rules.other.rate", "1/1h")))
                    .hasMessageContaining("exports");
        });
    }
}
