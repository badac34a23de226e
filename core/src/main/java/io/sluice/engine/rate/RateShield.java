package io.sluice.engine.rate;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

/**
 * How long the backend would reject every request of a key, whatever its cost, after its answer {@code o} to
 * {@code r}. That holds, for every algorithm, while nothing is left ({@code remaining == 0}) and until a permit
 * frees ({@code resetMillis}: the next token, window, waiting place or log entry). A rejection that left permits
 * (a cost-10 request with 3 left) does not reject every request: a cost-1 request would fit (the engine's shield,
 * {@link DenyCache}, still rejects those costing more than what remains). Soft and elastic rules are never
 * shielded: a nominal "0 remaining" does not mean the backend would reject. Thread-safe (stateless).
 */
public final class RateShield {
    private RateShield() {
    }

    /** Milliseconds to shield the key from when the request was asked; 0 for none. */
    public static long millis(RateRequest r, RateOutcome o) {
        if (r.overage() || o.remaining() > 0) return 0;
        return Math.max(0, o.resetMillis());
    }
}
