package io.sluice.testing;

import io.sluice.spi.RateOutcome;

import java.util.List;

/**
 * Outcomes as decisions, for comparing two backends' (or two calls') answers: without the entry an admitted
 * log decision carries, which names where one backend keeps the permits and differs from call to call.
 */
public final class Decided {
    private Decided() {
    }

    /** {@code o} without its entry. */
    public static RateOutcome of(RateOutcome o) {
        return o.withEntry(null);
    }

    /** Each of {@code outcomes} without its entry. */
    public static List<RateOutcome> of(List<RateOutcome> outcomes) {
        return outcomes.stream().map(Decided::of).toList();
    }
}
