package io.sluice.engine;

import io.sluice.Decision;
import io.sluice.Stats;

import java.util.concurrent.atomic.LongAdder;

/** Counts what the engine reports, for {@link Sluice#stats()}. Thread-safe. */
final class StatsRecorder implements EngineListener {
    private final LongAdder backendCalls = new LongAdder();
    private final LongAdder failedOpen = new LongAdder();
    private final LongAdder failedClosed = new LongAdder();
    private final LongAdder circuitOpenSkips = new LongAdder();
    private final LongAdder shielded = new LongAdder();
    private final LongAdder failedLocal = new LongAdder();

    @Override
    public void decided(Decision decision, Source source) {
        switch (source) {
            case SHIELD -> shielded.increment();
            case CIRCUIT_OPEN, BACKEND_FAILURE -> {
                (decision.outcome() == Decision.Outcome.FAILED_LOCAL ? failedLocal
                        : decision.allowed() ? failedOpen : failedClosed).increment();
                if (source == Source.CIRCUIT_OPEN) circuitOpenSkips.increment();
            }
            default -> { }
        }
    }

    @Override
    public void backendCalled() {
        backendCalls.increment();
    }

    /** The counts so far, with {@code droppedDecisionEvents} from the engine's {@link DecisionFeed}. */
    Stats snapshot(long droppedDecisionEvents) {
        return new Stats(backendCalls.sum(), failedOpen.sum(), failedClosed.sum(), circuitOpenSkips.sum(), shielded.sum(),
                failedLocal.sum(), droppedDecisionEvents);
    }
}
