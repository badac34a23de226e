package io.sluice.cdi;

import io.sluice.DecisionEvent;
import io.sluice.DecisionListener;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.spi.BeanManager;

/**
 * Fires each rejection as a CDI event of type {@link DecisionEvent}: {@code @Observes} methods run on Sluice's
 * listener thread (never a request's), {@code @ObservesAsync} ones on the container's executor. Admissions are not
 * fired: one event per request would cost every request an observer resolution. Thread-safe.
 */
final class RejectionEvents implements DecisionListener {
    private final Event<DecisionEvent> events;

    RejectionEvents(BeanManager beans) {
        this.events = beans.getEvent().select(DecisionEvent.class);
    }

    @Override
    public void onDecision(DecisionEvent event) {
        if (!event.rejected()) return;
        // fire() reaches only synchronous observers, fireAsync() only asynchronous ones: each hears it once.
        events.fire(event);
        events.fireAsync(event);
    }
}
