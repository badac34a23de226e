package io.sluice.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads an operator's override of one key's limit ({@code Sluice.override}): a rate as the rules file writes it
 * ({@code 7500/1h}, over the rule's period), a concurrency number ({@code 8}), or {@code unlimited} (every limit
 * of the rule). Values are checked by the code that checks a plan's, with the same messages; an override is a
 * plan of one key. Stateless.
 */
public final class OverrideParser {
    /** The name an override's limits carry (as a plan's carry the plan's name). */
    public static final String NAME = "override";
    /** What an override may be, for messages. */
    public static final String EXPECTED = "a rate over the rule's period such as 7500/1h, a concurrency number such as 8, "
            + "or unlimited";

    private OverrideParser() {
    }

    /**
     * The limits of an override of {@code rule}.
     *
     * @param rule  the rule as it is in effect
     * @param limit the override's value, as the operator wrote it
     * @return the limits, applied as a plan's are ({@link PlanLimits#applyTo})
     * @throws IllegalArgumentException naming the rule, the value and the expected form
     */
    public static PlanLimits parse(Rule rule, String limit) {
        String text = limit == null ? "" : limit.trim();
        String base = "override of " + RuleParser.PREFIX + "rules." + rule.name() + ".";
        if (text.equalsIgnoreCase(PlanParser.UNLIMITED)) {
            return new PlanLimits(NAME, Optional.empty(), rule.limitsRate(), 0, 0, rule.limitsConcurrency());
        }
        boolean rate = text.contains("/");
        String property = rate ? "rate" : "concurrency";
        if (rate && !rule.limitsRate()) {
            throw problem(base, property, text, "a concurrency number such as 8, or unlimited: rule " + rule.name()
                    + " limits concurrency only");
        }
        if (!rate && !rule.limitsConcurrency()) {
            throw problem(base, property, text, "a rate over the rule's period such as 7500/"
                    + Durations.format(rule.rate().orElseThrow().period()) + ", or unlimited: rule " + rule.name()
                    + " limits a rate only");
        }
        List<String> problems = new ArrayList<>();
        PlanParser plans = new PlanParser((p, v, expected) -> problems.add(shown(p, v, expected)), problems::add);
        PlanLimits parsed = plans.plan(base, NAME, Map.of(property, text), rule.rate(), rule.concurrency(), rule.ratePolicy());
        if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
        return parsed;
    }

    /**
     * The canonical text of a valid override, as it is stored: a rate as {@link Rate#toString()} writes it, a
     * number, or {@code unlimited}.
     */
    public static String canonical(PlanLimits limits) {
        if (limits.rateUnlimited() || limits.concurrencyUnlimited()) return PlanParser.UNLIMITED;
        return limits.rate().map(Rate::toString).orElseGet(() -> Integer.toString(limits.concurrency()));
    }

    private static IllegalArgumentException problem(String base, String property, String value, String expected) {
        return new IllegalArgumentException(shown(base + property, value, expected));
    }

    private static String shown(String property, String value, String expected) {
        return property + " = \"" + RuleParser.printable(value)
                + "\": expected " + expected;
    }
}
