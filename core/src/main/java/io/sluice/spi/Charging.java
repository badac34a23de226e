package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * A backend's capability to take permits whatever is left: a request settled at more than the estimate it was admitted
 * on is charged the difference even past the limit, and the key's next requests are rejected until time repays the
 * debt. On a backend without it, a request keeps the estimate it was admitted on.
 */
public interface Charging {

    /**
     * Takes {@code request.cost()} permits unconditionally. Only {@link Algorithm#settleable()} algorithms support it;
     * the others complete exceptionally with {@link UnsupportedOperationException}.
     *
     * @param request the permits to take
     * @return completes once taken
     */
    CompletionStage<Void> charge(RateRequest request);
}
