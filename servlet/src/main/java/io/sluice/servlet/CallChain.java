package io.sluice.servlet;

import io.sluice.rule.Rule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rules admitted for the {@code @Limited} calls (CDI's or Spring's) running on this thread: a call made from inside another that
 * applies the same rule is covered by the outer call's admission, so a rule counts once per call chain, as the filter
 * counts it once per request. A call made on another thread (a task the method hands to an executor) is a chain of its
 * own. Holds nothing on a thread once its outermost call has returned.
 */
public final class CallChain {
    private static final ThreadLocal<Set<String>> HELD = new ThreadLocal<>();

    private CallChain() {
    }

    /** The rules that no call in progress on this thread has been admitted by. */
    public static List<Rule> notHeld(List<Rule> rules) {
        Set<String> held = HELD.get();
        if (held == null) return rules;
        return rules.stream().filter(r -> !held.contains(r.name())).toList();
    }

    /**
     * Marks the rules as held while the admitted call runs on this thread.
     *
     * @return closes the mark: call it when the method returns or throws, on this thread
     */
    public static Runnable enter(List<Rule> admitted) {
        Set<String> held = HELD.get();
        if (held == null) {
            held = new HashSet<>();
            HELD.set(held);
        }
        List<String> added = new ArrayList<>(admitted.size());
        for (Rule r : admitted) if (held.add(r.name())) added.add(r.name());
        Set<String> mine = held;
        return () -> {
            added.forEach(mine::remove);
            // No set left behind on a container's pooled thread.
            if (mine.isEmpty()) HELD.remove();
        };
    }
}
