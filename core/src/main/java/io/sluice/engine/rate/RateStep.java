package io.sluice.engine.rate;

import io.sluice.Decision;
import java.util.concurrent.CompletionStage;

/**
 * One rung of a rule's rate path ({@link RatePath}): decides a request itself, or hands it to the step below it,
 * which each step is given when it is built. Implementations are thread-safe.
 */
@FunctionalInterface
interface RateStep {
    CompletionStage<Decision> decide(RateAsk ask);
}
