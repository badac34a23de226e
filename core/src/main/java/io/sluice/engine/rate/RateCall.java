package io.sluice.engine.rate;

import io.sluice.rule.Rule;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.concurrent.CompletionStage;

/** How a rule's request reaches the backend: coalesced per key ({@link Lanes}), or borrowing ({@link ElasticCall}). */
@FunctionalInterface
interface RateCall {
    Sent send(RateAsk ask);

    /**
     * A request sent: its {@code answer} under the deadline (failed with what the failure policy decides), and
     * the backend's own answer, {@code late}, whenever it comes, after the deadline too; never, when the request
     * was not sent (the shield screened it, or the call ahead of it failed). {@code capacity}: what an elastic
     * request over its nominal limit has its capacity rule pay, null for none.
     */
    record Sent(CompletionStage<RateAnswer> answer, CompletionStage<RateOutcome> late, Payment capacity) {
        Sent(CompletionStage<RateAnswer> answer, CompletionStage<RateOutcome> late) {
            this(answer, late, null);
        }
    }

    /**
     * The capacity rule that pays for an elastic request over its nominal limit, its request for the cost, and where
     * the capacity's backend keeps what it paid once it has ({@code entry}: a log's entry, a window's index), so that
     * undoing the payment gives back its own permits, not a later request's.
     */
    record Payment(Rule rule, RateRequest request, TakenEntry entry) {
        Payment(Rule rule, RateRequest request) {
            this(rule, request, new TakenEntry());
        }
    }
}
