package io.sluice.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A backend's capability to decide several requests of one key in one call to its store. Sluice coalesces
 * concurrent decisions for a key into one such call; for a backend without it, it asks them one after another
 * ({@link #oneAfterAnother}).
 */
public interface Batching {

    /**
     * Decides several requests for one key, in order, exactly as {@link LimiterBackend#tryConsume} called for each
     * of them one after another at the same instant would: each answer sees the permits its predecessors took.
     *
     * @param requests requests for the same key and algorithm, at least one, in arrival order
     * @return one answer per request, in the same order
     */
    CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests);

    /**
     * Batches of a backend without this capability: each request asked after the previous one has been answered.
     *
     * @param backend the backend to ask
     * @return batching by one call per request
     */
    static Batching oneAfterAnother(LimiterBackend backend) {
        return requests -> {
            List<RateOutcome> answers = new ArrayList<>(requests.size());
            CompletionStage<Void> chain = CompletableFuture.completedFuture(null);
            for (RateRequest r : requests) chain = chain.thenCompose(ignored -> backend.tryConsume(r)).thenAccept(answers::add);
            return chain.thenApply(ignored -> answers);
        };
    }
}
