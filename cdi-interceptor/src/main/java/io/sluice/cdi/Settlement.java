package io.sluice.cdi;

import io.sluice.rule.Rule;
import io.sluice.rule.Settle;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The actual cost of the {@link Limited} call in progress, as the application reports it: the call was admitted on
 * its {@code cost} (an estimate), and when it returns, throws, or its {@code CompletionStage} completes, each rule of
 * the call that can be settled is charged what was reported instead (the difference taken, past the limit if need
 * be, or given back). A call that reports nothing keeps its estimate.
 *
 * <pre>{@code
 * @Limited("llm-tokens")
 * public CompletionStage<Answer> ask(@LimitKey String customer, String prompt) {
 *     Settlement settlement = Settlement.current();           // on the call's own thread
 *     return model.complete(prompt).thenApply(answer -> {
 *         settlement.report(answer.tokensUsed());             // from any thread, before the stage completes
 *         return answer;
 *     });
 * }
 * }</pre>
 *
 * <p>{@link #current()} is available on the thread that runs the method, while it runs; the object it returns may
 * be kept and used from other threads until the call (or its stage) completes. Thread-safe.
 */
public final class Settlement {
    private static final ThreadLocal<Settlement> CURRENT = new ThreadLocal<>();
    /** The key of a report for every settleable rule of the call. */
    private static final String EVERY_RULE = "";

    private final List<Rule> rules;
    private final Map<String, Long> reported = new ConcurrentHashMap<>();

    Settlement(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /**
     * The settlement of the {@link Limited} call running on this thread.
     *
     * @return the innermost call's settlement
     * @throws IllegalStateException outside a {@code @Limited} method whose rules limit the call
     */
    public static Settlement current() {
        Settlement s = CURRENT.get();
        if (s == null) throw new IllegalStateException("Settlement.current() is only available inside a @Limited call");
        return s;
    }

    /**
     * Reports the call's actual cost for every rule of the call that can be settled (a rate counted by
     * {@code token-bucket}, {@code fixed-window} or {@code sliding-window}, hard, without prefetch). The last report
     * wins.
     *
     * @param actualCost what the call really cost, 0 or more
     */
    public void report(long actualCost) {
        reported.put(EVERY_RULE, nonNegative(actualCost));
    }

    /**
     * Reports the call's actual cost for one rule, which wins over {@link #report(long)} for that rule.
     *
     * @param rule       the name of a rule of the call that can be settled
     * @param actualCost what the call really cost under that rule, 0 or more
     * @throws IllegalArgumentException when the rule does not limit this call or cannot be settled
     */
    public void report(String rule, long actualCost) {
        Rule r = rules.stream().filter(x -> x.name().equals(rule)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("rule " + rule + " does not limit this call"));
        Settle.refusal(r).ifPresent(why -> {
            throw new IllegalArgumentException("rule " + rule + " cannot be settled: " + why);
        });
        reported.put(rule, nonNegative(actualCost));
    }

    private static long nonNegative(long cost) {
        if (cost < 0) throw new IllegalArgumentException("an actual cost must not be negative: " + cost);
        return cost;
    }

    /** What was reported for {@code rule}: its own report, else the call's; empty when nothing applies to it. */
    Optional<Long> reportedFor(Rule rule) {
        if (Settle.refusal(rule).isPresent()) return Optional.empty();
        Long own = reported.get(rule.name());
        return Optional.ofNullable(own != null ? own : reported.get(EVERY_RULE));
    }

    /** The rules of the call. */
    List<Rule> rules() {
        return rules;
    }

    /**
     * Makes this the current settlement while the method runs on this thread.
     *
     * @return puts the previous one back: call it when the method returns or throws, on this thread
     */
    Runnable enter() {
        Settlement previous = CURRENT.get();
        CURRENT.set(this);
        return () -> {
            if (previous == null) CURRENT.remove();
            else CURRENT.set(previous);
        };
    }
}
