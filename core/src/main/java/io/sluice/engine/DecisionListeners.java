package io.sluice.engine;

import io.sluice.Decision;
import io.sluice.rule.Rule;

import java.util.List;
import java.util.function.BooleanSupplier;

/** Several listeners as one, called in order. Thread-safe when they are. */
public final class DecisionListeners implements DecisionListener {
    private final DecisionListener[] listeners;

    private DecisionListeners(List<DecisionListener> listeners) {
        this.listeners = listeners.toArray(DecisionListener[]::new);
    }

    /** {@return the listeners as one; the only one itself when there is one} */
    public static DecisionListener of(List<DecisionListener> listeners) {
        return listeners.size() == 1 ? listeners.get(0) : new DecisionListeners(listeners);
    }

    @Override
    public void decided(Decision decision, Source source) {
        for (DecisionListener l : listeners) l.decided(decision, source);
    }

    @Override
    public void backendCalled() {
        for (DecisionListener l : listeners) l.backendCalled();
    }

    @Override
    public void skipped(Rule rule, Decision.Kind kind) {
        for (DecisionListener l : listeners) l.skipped(rule, kind);
    }

    @Override
    public void exempt(Rule rule, Decision.Kind kind) {
        for (DecisionListener l : listeners) l.exempt(rule, kind);
    }

    @Override
    public void backendAnswered(CallOutcome outcome, long nanos) {
        for (DecisionListener l : listeners) l.backendAnswered(outcome, nanos);
    }

    @Override
    public void permitTaken(Rule rule) {
        for (DecisionListener l : listeners) l.permitTaken(rule);
    }

    @Override
    public void permitReturned(Rule rule) {
        for (DecisionListener l : listeners) l.permitReturned(rule);
    }

    @Override
    public void watchCircuit(BooleanSupplier open) {
        for (DecisionListener l : listeners) l.watchCircuit(open);
    }

    @Override
    public void engineClosed() {
        for (DecisionListener l : listeners) l.engineClosed();
    }
}
