package io.sluice;

/**
 * Hears every decision the engine makes for a request: for audit logs, dashboards of rejections, alerts. Register
 * one with {@link Sluice.Builder#onDecision}, {@link Sluice#listen}, or as a {@code ServiceLoader} service
 * ({@code META-INF/services/io.sluice.DecisionListener}, found in the application's class loader when Sluice is
 * built).
 *
 * <p>Listeners never run on a request's thread: decisions are queued (a bounded queue; what does not fit is dropped
 * and counted in {@link Stats#droppedDecisionEvents()}) and handed to each listener, in order, on one thread of the
 * engine. A listener that throws is logged and goes on hearing the next decisions; a slow one only delays the
 * others' events, never a request.
 */
@FunctionalInterface
public interface DecisionListener {

    /**
     * One decision, made.
     *
     * @param event what was decided, for which rule; the key only as its hash
     */
    void onDecision(DecisionEvent event);
}
