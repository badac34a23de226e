package io.sluice.engine.rate;

import io.sluice.rule.Rule;
import io.sluice.spi.RateRequest;

import java.time.Duration;

/**
 * A rate decision under way, as each step of a {@link RatePath} sees it: the rule as the request's plan limits it
 * (what its decision reports), the backend request, the rule's limit, and the one deadline every wait of the
 * decision shares (on the engine's ticker). Immutable.
 */
record RateAsk(Rule rule, RateRequest request, long limit, long deadlineNanos) {
    String key() {
        return request.key();
    }

    long cost() {
        return request.cost();
    }

    /** What is left of the deadline at {@code nowNanos}: never negative. */
    Duration left(long nowNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - nowNanos));
    }
}
