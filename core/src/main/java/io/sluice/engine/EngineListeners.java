package io.sluice.engine;

import io.sluice.Decision;
import io.sluice.rule.Rule;

import java.util.List;
import java.util.function.BooleanSupplier;

/** Several listeners as one, called in order. Thread-safe when they are. */
public final class EngineListeners implements EngineListener {
    private final EngineListener[] listeners;

    private EngineListeners(List<EngineListener> listeners) {
        this.listeners = listeners.toArray(EngineListener[]::new);
    }

    /** {@return the listeners as one; the only one itself when there is one} */
    public static EngineListener of(List<EngineListener> listeners) {
        return listeners.size() == 1 ? listeners.get(0) : new EngineListeners(listeners);
    }

    @Override
    public void decided(Decision decision, Source source) {
        for (EngineListener l : listeners) l.decided(decision, source);
    }

    @Override
    public void backendCalled() {
        for (EngineListener l : listeners) l.backendCalled();
    }

    @Override
    public void skipped(Rule rule, Decision.Kind kind) {
        for (EngineListener l : listeners) l.skipped(rule, kind);
    }

    @Override
    public void exempt(Rule rule, Decision.Kind kind) {
        for (EngineListener l : listeners) l.exempt(rule, kind);
    }

    @Override
    public void backendAnswered(CallOutcome outcome, long nanos) {
        for (EngineListener l : listeners) l.backendAnswered(outcome, nanos);
    }

    @Override
    public void permitTaken(Rule rule) {
        for (EngineListener l : listeners) l.permitTaken(rule);
    }

    @Override
    public void permitReturned(Rule rule) {
        for (EngineListener l : listeners) l.permitReturned(rule);
    }

    @Override
    public void watchCircuit(BooleanSupplier open) {
        for (EngineListener l : listeners) l.watchCircuit(open);
    }

    @Override
    public void engineClosed() {
        for (EngineListener l : listeners) l.engineClosed();
    }
}
