package io.sluice.engine.rate;

import io.sluice.rule.Rule;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Duration;

/**
 * A rate decision under way, as each step of a {@link RatePath} sees it: the rule as the request's plan limits it
 * (what its decision reports), the backend request, the rule's limit, the one deadline every wait of the
 * decision shares (on the engine's ticker), and where the backend's answer says it keeps the permits taken (written
 * once, by {@link #took}). Immutable but for that entry.
 */
record RateAsk(Rule rule, RateRequest request, long limit, long deadlineNanos, TakenEntry entry) {
    RateAsk(Rule rule, RateRequest request, long limit, long deadlineNanos) {
        this(rule, request, limit, deadlineNanos, new TakenEntry());
    }

    /** The backend's answer {@code o} decides the request: admitted, its permits' entry is remembered for a give-back. */
    void took(RateOutcome o) {
        if (o.allowed()) entry.set(o.entry());
    }
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
