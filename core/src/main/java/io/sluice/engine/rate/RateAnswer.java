package io.sluice.engine.rate;

import io.sluice.spi.RateOutcome;

/** What a rule's {@link RateCall} came back with for one request, before it is a decision. */
sealed interface RateAnswer {
    /** The backend's answer. */
    record Answered(RateOutcome outcome) implements RateAnswer {
    }

    /**
     * The shield's rejection of a request queued behind its key's call, answered before its batch was sent:
     * {@code remaining} is what the shield knew the key had left after the requests ahead of it.
     */
    record Screened(long remaining, long millisLeft) implements RateAnswer {
    }
}
