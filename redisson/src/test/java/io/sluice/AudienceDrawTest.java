package io.sluice;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EngineMatchesModelTest}'s own seeds draw rules with {@code when}, {@code exempt} and {@code key=user|ip}, and
 * requests of anonymous callers and of a user named as an address, so the model checks them on every build.
 */
class AudienceDrawTest {
    @Test
    void theTestsSeedsDrawAudiences() {
        List<EngineScenario> drawn = LongStream.rangeClosed(1, EngineMatchesModelTest.SEEDS)
                .mapToObj(seed -> EngineScenario.draw(seed, EngineMatchesModelTest.STEPS, false)).toList();
        List<Map.Entry<String, String>> properties = drawn.stream().flatMap(s -> s.rules().entrySet().stream()).toList();
        assertThat(properties).anySatisfy(e -> assertThat(e.getKey()).endsWith(".when"));
        assertThat(properties).anySatisfy(e -> assertThat(e.getKey()).endsWith(".exempt"));
        assertThat(properties).anySatisfy(e -> assertThat(e.getValue()).isEqualTo("user|ip"));
        List<String> callers = drawn.stream().flatMap(s -> s.steps().stream())
                .filter(step -> step instanceof EngineScenario.Request).map(step -> ((EngineScenario.Request) step).key()).toList();
        assertThat(callers).contains("anonymous@10.0.0.1", "anonymous@10.0.0.2", "10.0.0.1");
        long exact = drawn.stream().filter(EngineScenario::exact)
                .filter(s -> s.rules().keySet().stream().anyMatch(k -> k.endsWith(".when") || k.endsWith(".exempt"))).count();
        assertThat(exact).as("seeds with audiences compared decision by decision").isPositive();
    }

    @Test
    void aSeedWithoutAudiencesDrawsWhatItDrewBefore() {
        for (long seed = 1; seed <= 30; seed++) {
            EngineScenario s = EngineScenario.draw(seed, 20, false);
            if (new SplittableRandom(seed * EngineScenario.AudienceDraw.SALT).nextInt(3) != 0) {
                assertThat(s.rules().keySet()).noneSatisfy(k -> assertThat(k).endsWith(".when"))
                        .noneSatisfy(k -> assertThat(k).endsWith(".exempt"));
                assertThat(s.steps()).allSatisfy(step -> {
                    if (step instanceof EngineScenario.Request r) assertThat(r.key()).isIn(EngineScenario.KEYS);
                });
            }
        }
    }
}
