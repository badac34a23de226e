package io.sluice.examples.quarkus;

import io.sluice.cdi.Limited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Generates images, at most 2 at once for everyone (rule {@code images}). A generation holds no thread: it
 * completes when {@link #finishAll()} is called (a stand-in for the model answering), and its permit is held
 * until then. Counts what runs, so a test can check the peak.
 */
@ApplicationScoped
public class ImageService {
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(new CompletableFuture<>());

    @Limited("images")
    public CompletionStage<String> generate(String prompt) {
        peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        return gate.get().thenApply(done -> {
            inFlight.decrementAndGet();
            return "image of " + prompt + "\n";
        });
    }

    /** Completes every generation in flight. */
    public void finishAll() {
        gate.getAndSet(new CompletableFuture<>()).complete(null);
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int peak() {
        return peak.get();
    }
}
