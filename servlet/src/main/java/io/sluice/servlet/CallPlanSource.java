package io.sluice.servlet;

import io.sluice.KeySource;
import io.sluice.rule.Rule;

import java.util.List;
import java.util.function.Supplier;

/**
 * Where a {@code @Limited} call's plan comes from: its {@code @LimitPlan} argument, else each rule's {@code plan} source read from
 * the current HTTP request (when the call's keys come from elsewhere, a {@code @LimitKey} argument, the request is
 * still asked for the plan). Stateless.
 */
public final class CallPlanSource {
    private CallPlanSource() {
    }

    /**
     * The call's keys and costs as {@code keys} gives them, and its plan as the class comment says.
     *
     * @param keys            the call's keys
     * @param keysFromRequest whether {@code keys} already reads the current request (and so its plans)
     * @param planArgument    the {@code @LimitPlan} argument's value, or null
     * @param hasPlanArgument whether the method has a {@code @LimitPlan} parameter
     * @param rules           the rules that apply to the call
     * @param request         the current request's keys, asked only when needed
     * @return {@code keys} answering the call's plan
     */
    public static KeySource of(KeySource keys, boolean keysFromRequest, boolean hasPlanArgument, Object planArgument,
                        List<Rule> rules, Supplier<KeySource> request) {
        if (hasPlanArgument) return keys.withPlan(planArgument == null ? null : planArgument.toString());
        if (keysFromRequest || !anyPlans(rules)) return keys;
        KeySource fromRequest = request.get();
        return new DelegatingKeySource(keys) {
            @Override
            public String planFor(Rule rule) {
                return fromRequest.planFor(rule);
            }
        };
    }

    /** A loop, not a stream: asked on every call of a {@code @LimitKey} method. */
    private static boolean anyPlans(List<Rule> rules) {
        for (Rule r : rules) if (r.plans().any()) return true;
        return false;
    }
}
