package io.sluice.cdi;

import io.sluice.rule.ConfigLoader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the extension checks when the container starts. */
class DeploymentValidationTest {

    @Test
    void unknownRuleFailsDeploymentNamingClassMethodAndRule() {
        var rules = CdiTesting.rulesFile("sluice.rules.known.rate=1/1h", "sluice.rules.known.key=global");
        assertThatThrownBy(() -> CdiTesting.boot(rules, UnknownRules.class).shutdown())
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("@Limited on " + UnknownRules.class.getName() + ".bar names unknown rule 'nope'; rules are: [known]")
                .hasMessageContaining("@Limited on " + UnknownRules.class.getName() + ".bar names unknown rule 'zilch'")
                .hasMessageContaining("@Limited on " + UnknownRules.class.getName() + " names unknown rule 'nada'");
    }

    @Test
    void invalidRulesFileFailsDeployment() {
        var rules = CdiTesting.rulesFile("sluice.rules.known.rate=ten/h");
        assertThatThrownBy(() -> CdiTesting.boot(rules, KnownRule.class).shutdown())
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("Sluice rules file is invalid")
                .hasMessageContaining("sluice.rules.known.rate = \"ten/h\"");
    }

    @Test
    void twoLimitKeysFailDeployment() {
        var rules = CdiTesting.rulesFile("sluice.rules.known.rate=1/1h");
        assertThatThrownBy(() -> CdiTesting.boot(rules, TwoKeys.class).shutdown())
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("@LimitKey on 2 parameters of " + TwoKeys.class.getName() + ".call");
    }

    @Test
    void aLimitCostOnTwoParametersOrOnANumberThatIsNotIntOrLongFailsDeployment() {
        var rules = CdiTesting.rulesFile("sluice.rules.known.rate=1/1h");
        assertThatThrownBy(() -> CdiTesting.boot(rules, BadCosts.class).shutdown())
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("@LimitCost on 2 parameters of " + BadCosts.class.getName() + ".two: expected at most one")
                .hasMessageContaining("@LimitCost on a parameter of type java.lang.String of " + BadCosts.class.getName()
                        + ".text: expected an int or long parameter (the permits the call takes)")
                .hasMessageContaining("@LimitCost on a parameter of type double of " + BadCosts.class.getName() + ".fraction");
    }

    @Test
    void noLimitedBeanNeedsNoRulesFile() {
        System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
        try (WeldContainer container = CdiTesting.weld(Unlimited.class).initialize()) {
            assertThat(container.select(Unlimited.class).get().call()).isEqualTo("free");
        }
    }

    @Test
    void extensionIsRegisteredAsAService() {
        assertThat(ServiceLoader.load(Extension.class).stream().map(ServiceLoader.Provider::type))
                .contains(SluiceExtension.class);
    }

    @ApplicationScoped
    @Limited("nada")
    public static class UnknownRules {
        @Limited({"known", "nope"})
        public void bar() {
        }

        @Limited("zilch")
        public void bar(int overload) {
        }
    }

    @ApplicationScoped
    public static class KnownRule {
        @Limited("known")
        public void call() {
        }
    }

    @ApplicationScoped
    public static class TwoKeys {
        @Limited("known")
        public void call(@LimitKey String a, @LimitKey String b) {
        }
    }

    @ApplicationScoped
    public static class BadCosts {
        @Limited("known")
        public void two(@LimitCost int a, @LimitCost long b) {
        }

        @Limited("known")
        public void text(@LimitCost String cost) {
        }

        @Limited("known")
        public void fraction(@LimitCost double cost) {
        }
    }

    @ApplicationScoped
    public static class Unlimited {
        public String call() {
            return "free";
        }
    }
}
