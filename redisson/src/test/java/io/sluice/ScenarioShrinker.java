package io.sluice;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Delta debugging of a failing {@link EngineScenario}: drops runs of steps, halving their length, while the run
 * still fails the same way (the same kind of failure), and steps after the failing one at once. Bounded in runs
 * and time, so that a failing seed reports in reasonable time even on a busy machine.
 */
final class ScenarioShrinker {
    private static final int MAX_RUNS = 150;
    private static final long MAX_NANOS = 120_000_000_000L;

    record Shrunk(EngineScenario scenario, EngineScenarioRun.Failure failure, int runs) {
    }

    private ScenarioShrinker() {
    }

    static Shrunk shrink(EngineScenario failing, EngineScenarioRun.Failure first,
                         Function<EngineScenario, Optional<EngineScenarioRun.Failure>> run) {
        long deadline = System.nanoTime() + MAX_NANOS;
        List<EngineScenario.Step> steps = new ArrayList<>(failing.steps().subList(0, Math.min(failing.steps().size(), first.step() + 1)));
        EngineScenarioRun.Failure failure = first;
        int runs = 0;
        int chunk = Math.max(1, steps.size() / 2);
        while (chunk >= 1 && runs < MAX_RUNS && System.nanoTime() < deadline) {
            boolean dropped = false;
            for (int from = 0; from < steps.size() && runs < MAX_RUNS && System.nanoTime() < deadline; ) {
                List<EngineScenario.Step> fewer = new ArrayList<>(steps);
                fewer.subList(from, Math.min(steps.size(), from + chunk)).clear();
                runs++;
                Optional<EngineScenarioRun.Failure> f = fewer.isEmpty() ? Optional.empty() : run.apply(failing.withSteps(fewer));
                if (f.isPresent() && f.get().kind().equals(first.kind())) {
                    steps = new ArrayList<>(fewer.subList(0, Math.min(fewer.size(), f.get().step() + 1)));
                    failure = f.get();
                    dropped = true;
                } else {
                    from += chunk;
                }
            }
            if (!dropped) chunk /= 2;
        }
        return new Shrunk(failing.withSteps(steps), failure, runs);
    }
}
