package io.sluice.model;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The contract's concurrency for one rule and key: the permits in flight, whatever plan took them (the plan is not
 * part of the counter), and the requests waiting for one, each judged by its own plan's limit.
 */
public final class ConcurrencyModel {
    private final Set<Integer> held = new LinkedHashSet<>();
    /** Waiting request ids and the limit each is judged by, in arrival order. */
    private final Map<Integer, Integer> waiting = new LinkedHashMap<>();

    /** Whether a request judged by {@code limit} may take a permit now. */
    public boolean fits(int limit) {
        return held.size() < limit;
    }

    public void hold(int id) {
        held.add(id);
        waiting.remove(id);
    }

    public void await(int id, int limit) {
        waiting.put(id, limit);
    }

    /** Ends a request: its permit, or its wait (a request given up on), is gone. */
    public boolean release(int id) {
        waiting.remove(id);
        return held.remove(id);
    }

    /** The permits are gone (Redis lost them); waiters still wait. */
    void forgetHeld() {
        held.clear();
    }

    public int inFlight() {
        return held.size();
    }

    public boolean holds(int id) {
        return held.contains(id);
    }

    public Map<Integer, Integer> waiting() {
        return Map.copyOf(waiting);
    }

    /** Whether some waiter may take a permit now (a release freed one it may take). */
    public boolean aWaiterFits() {
        return waiting.values().stream().anyMatch(this::fits);
    }
}
