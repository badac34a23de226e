package io.sluice.cdi;

import io.sluice.ConfigException;
import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Hot reload through the interceptor in a real Weld container on a real Redis: the next call is decided under
 * the reloaded rules (each {@code LimitedMethod} looks its rules up again for the new rule set), with the usage kept;
 * a reload that would remove a rule a deployed {@code @Limited} names is refused, naming the method, and the
 * calls go on under the rules in effect.
 */
class InterceptorReloadTest {

    @Test
    void theNextCallSeesTheNewLimitAndARuleThatAnnotationsNameCannotBeRemoved() throws IOException {
        Path rules = CdiTesting.rulesFile("sluice.rules.images.rate=3/1h", "sluice.rules.images.key=user",
                "sluice.rules.spare.rate=1/1s");
        List<String> head = Files.readAllLines(rules, StandardCharsets.UTF_8).subList(0, 3);
        WeldContainer container = CdiTesting.boot(rules, Images.class);
        try {
            Images images = container.select(Images.class).get();
            Sluice sluice = container.select(Sluice.class).get();
            // Before any call: the extension registered the annotation's rules at deployment.
            rewrite(rules, head, "sluice.rules.spare.rate=2/1s");
            assertThatThrownBy(sluice::reload).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("@Limited on " + Images.class.getName() + ".generate names it");
            for (int i = 0; i < 3; i++) assertThat(images.generate("ann")).isEqualTo("image for ann");
            assertThatThrownBy(() -> images.generate("ann")).isInstanceOfSatisfying(LimitExceededException.class,
                    e -> assertThat(e.limit()).isEqualTo(3));

            rewrite(rules, head, "sluice.rules.images.rate=5/1h", "sluice.rules.images.key=user");
            assertThat(sluice.reload()).isTrue();
            assertThat(images.generate("ann")).as("3 used of 5").isEqualTo("image for ann");
            assertThat(images.generate("ann")).isEqualTo("image for ann");
            assertThatThrownBy(() -> images.generate("ann")).isInstanceOfSatisfying(LimitExceededException.class, e -> {
                assertThat(e.limit()).isEqualTo(5);
                assertThat(e.remaining()).isZero();
            });

            rewrite(rules, head, "sluice.rules.spare.rate=1/1s");
            assertThatThrownBy(sluice::reload).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("sluice.rules.images = (removed)")
                    .hasMessageContaining("since @Limited on " + Images.class.getName() + ".generate names it");
            assertThat(sluice.rules().get("images")).isPresent();
            assertThatThrownBy(() -> images.generate("ann")).isInstanceOfSatisfying(LimitExceededException.class,
                    e -> assertThat(e.limit()).isEqualTo(5));
            assertThat(images.generate("bob")).isEqualTo("image for bob");
        } finally {
            container.close();
        }
    }

    private static void rewrite(Path rules, List<String> head, String... lines) throws IOException {
        Path tmp = rules.resolveSibling(rules.getFileName() + ".tmp");
        StringBuilder sb = new StringBuilder();
        for (String l : head) sb.append(l).append('\n');
        for (String l : lines) sb.append(l).append('\n');
        Files.writeString(tmp, sb, StandardCharsets.UTF_8);
        Files.move(tmp, rules, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @ApplicationScoped
    public static class Images {
        @Limited("images")
        public String generate(@LimitKey String user) {
            return "image for " + user;
        }
    }
}
