package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * A backend's capability to hand back permits a decision took: an elastic request whose capacity rule could not
 * pay for its overage, or a request that ended without using what it was admitted for. On a backend without it,
 * permits once taken stay taken until their window frees them.
 */
public interface Refunding {

    /**
     * Hands back {@code request.cost()} permits an earlier {@link LimiterBackend#tryConsume} took. Only
     * {@link Algorithm#refundable()} algorithms support it; the others complete exceptionally with
     * {@link UnsupportedOperationException}.
     *
     * @param request the request whose permits to hand back
     * @return completes once handed back
     */
    CompletionStage<Void> refund(RateRequest request);
}
