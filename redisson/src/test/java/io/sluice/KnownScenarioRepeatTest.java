package io.sluice;

import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A known scenario run many times, for one that fails now and then ({@code -Dsluice.repeat=40}; off otherwise): the
 * run's clock starts at the real time, so the runs are paced over one 10 s window (run i starts i / N of it later than
 * the first: pacing, not synchronisation), each meeting another phase of the rule's window. Prints each failure with
 * where in a 10 s window the clock stood.
 */
@EnabledIfSystemProperty(named = "sluice.repeat", matches = "\\d+")
class KnownScenarioRepeatTest {
    private static final long WINDOW_MILLIS = 10_000;
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"a sliding window's stock-paid permit given back beside a later window's stock",
            "a fixed window's stock-paid permit given back beside a later window's stock"})
    void repeated(String name) {
        int runs = Integer.getInteger("sluice.repeat");
        EngineScenario scenario = KnownScenarios.all().get(name);
        List<String> failures = new ArrayList<>();
        long first = System.currentTimeMillis();
        for (int i = 0; i < runs; i++) {
            pace(first + i * WINDOW_MILLIS / runs);
            long phase = System.currentTimeMillis() % WINDOW_MILLIS;
            Optional<EngineScenarioRun.Failure> failure;
            try (EngineScenarioRun run = new EngineScenarioRun(scenario, redis.client(), null)) {
                failure = run.run();
            }
            failure.ifPresent(f -> failures.add("started " + phase + " ms into a window: " + f));
        }
        System.out.printf("KnownScenarioRepeat %s: %d of %d as the model%n", name, runs - failures.size(), runs);
        assertThat(failures).as(name).isEmpty();
    }

    /** Returns once the real time is {@code startMillis} or later. */
    private static void pace(long startMillis) {
        long ahead;
        while ((ahead = startMillis - System.currentTimeMillis()) > 0) {
            try {
                Thread.sleep(ahead);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
