package io.sluice.examples.quarkus;

import io.quarkus.test.QuarkusUnitTest;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On Quarkus too, a {@code @Limited} naming a rule the rules lack fails the application, naming the method and
 * the rule: here {@link PostService} with rules in {@code application.properties} that have no {@code posts}.
 */
class UnknownRuleTest {
    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(PostService.class)
                    .addAsResource(new StringAsset("sluice.rules.images.key=global\nsluice.rules.images.concurrency=2\n"),
                            "application.properties"))
            .assertException(e -> assertThat(innermost(e)).hasMessage("@Limited on " + PostService.class.getName()
                    + ".publish names unknown rule 'posts'; rules are: [images]"));

    /** The problem itself, however the build wraps it. */
    private static Throwable innermost(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t;
    }

    @Test
    void theApplicationDoesNotStart() {
        // The build failed as assertException expects; no test body runs against an application.
    }
}
