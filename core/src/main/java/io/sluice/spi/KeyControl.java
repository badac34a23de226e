package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * A backend's capability to look up and forget one key of a rate rule, for operators ({@code Sluice.usage} and
 * {@code Sluice.reset}). Without it, the engine can neither look a key up nor reset it.
 */
public interface KeyControl {

    /**
     * What {@code request} would find now, taking nothing: the permits left and the time until one frees, counted
     * as a request of the key would count them, and, when {@link RateRequest#blocks() it blocks}, the time its
     * key's block has left.
     *
     * @param request a request of the key (its cost does not matter)
     * @return the key's usage
     */
    CompletionStage<RateUsage> peek(RateRequest request);

    /**
     * Forgets the key's rate state and its block, on every server: the key's next request finds the full limit.
     *
     * @param request a request of the key (its cost does not matter)
     * @return completes once forgotten
     */
    CompletionStage<Void> forget(RateRequest request);
}
