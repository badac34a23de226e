package io.sluice.engine.prefetch;

import io.sluice.spi.RateRequest;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Which of a key's answers crossed another in flight: a call of the key's slot (a fetch, a refill) and a decision
 * made in the backend without one ({@link Prefetcher#deciding}) that were in flight together may have run in the
 * backend in either order, whatever the order they land in. The one that lands second was in flight when the other
 * landed: that is what this tells. Guarded by the lock of the key's slot.
 */
final class CrossedAnswers {
    private long callsLanded;
    private long decisionsLanded;
    /** {@link #decisionsLanded} when the call in flight started (one call at a time per key). */
    private long decisionsAtCall;
    /** The decisions in flight (by identity: two alike may be in flight together), each with {@link #callsLanded} when sent. */
    private final Map<RateRequest, Long> decisions = new IdentityHashMap<>();

    void callStarted() {
        decisionsAtCall = decisionsLanded;
    }

    /** The call in flight has its answer: whether a decision landed while it was in flight. */
    boolean callLanded() {
        callsLanded++;
        return decisionsLanded != decisionsAtCall;
    }

    void decisionSent(RateRequest request) {
        decisions.put(request, callsLanded);
    }

    /**
     * The decision of {@code request} has its answer: whether a call landed while it was in flight. One not sent
     * through {@link #decisionSent} was sent before this slot was made, so every call it has heard landed since.
     */
    boolean decisionLanded(RateRequest request) {
        decisionsLanded++;
        Long sentAt = decisions.remove(request);
        return sentAt == null ? callsLanded > 0 : callsLanded != sentAt;
    }

    /** The decision of {@code request} ended without an answer heard (failed, or of another limit). */
    void decisionEnded(RateRequest request) {
        decisions.remove(request);
    }
}
