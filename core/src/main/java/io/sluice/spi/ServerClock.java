package io.sluice.spi;

import java.util.concurrent.CompletionStage;

/**
 * A backend whose store has a clock of its own (Redis {@code TIME}), which Sluice measures this server's clock
 * against ({@code sluice.max-clock-skew}). A store in this JVM has none: there is no skew to measure.
 */
public interface ServerClock {

    /**
     * The store's own clock.
     *
     * @return the store's time in epoch milliseconds
     */
    CompletionStage<Long> serverTimeMillis();
}
