package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * A backend that reaches its store over a connection: for health checks, and for start-up to know when to stop
 * waiting ({@code sluice.await-backend}). A backend without this capability is always connected (an in-JVM store).
 */
public interface Connecting {

    /**
     * Whether the backend has reached its store. A backend that connects in the background answers false until its
     * first connection has succeeded, and may take the question as the cue to try again after a failed attempt.
     *
     * @return whether the first connection has been made
     */
    boolean connected();

    /**
     * Completes once the first connection to the store has succeeded. A failed attempt does not complete it: it
     * completes exceptionally only if the backend is closed first. A backend that connects on demand retries when
     * asked again (a decision, {@link #connected()}), so a caller that waits long polls {@link #connected()}
     * meanwhile, as start-up does.
     *
     * @return the first connection
     */
    CompletionStage<Void> firstConnection();
}
