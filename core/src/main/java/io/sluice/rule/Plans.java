package io.sluice.rule;

import io.sluice.key.PlanSource;

import java.util.Map;
import java.util.Optional;

/**
 * A rule's per-plan limits: where a request's plan comes from ({@code plan}) and each plan's limits
 * ({@code plans.<plan>.rate|burst|concurrency}). A request without a plan, or with a value that names none of
 * the rule's plans, gets the rule's own limits. Immutable and thread-safe.
 *
 * @param source where the plan comes from; empty for a rule without plans
 * @param byName the plans, by name
 */
public record Plans(Optional<PlanSource> source, Map<String, PlanLimits> byName) {
    /** A rule without plans. */
    public static final Plans NONE = new Plans(Optional.empty(), Map.of());

    public Plans {
        byName = Map.copyOf(byName);
    }

    /** {@return whether the rule has plans} */
    public boolean any() {
        return !byName.isEmpty();
    }

    /**
     * The plan a request's raw value names, compared exactly (case-sensitive) with the plan names.
     *
     * @param raw the value as read from the request or given by code; may be null, long or hostile
     * @return the plan, or null for the rule's own limits
     */
    public PlanLimits lookup(String raw) {
        return raw == null ? null : byName.get(raw);
    }
}
