package io.sluice.engine.rate;

import io.sluice.spi.RateOutcome;

import java.util.concurrent.CompletionStage;

/** How a rule's request reaches the backend: coalesced per key ({@link Lanes}), or borrowing ({@link ElasticCall}). */
@FunctionalInterface
interface RateCall {
    Sent send(RateAsk ask);

    /**
     * A request sent: its {@code answer} under the deadline (failed with what the failure policy decides), and
     * the backend's own answer, {@code late}, whenever it comes, after the deadline too; never, when the request
     * was not sent (the shield screened it, or the call ahead of it failed).
     */
    record Sent(CompletionStage<RateAnswer> answer, CompletionStage<RateOutcome> late) {
    }
}
