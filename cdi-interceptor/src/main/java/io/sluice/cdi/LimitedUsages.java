package io.sluice.cdi;

import io.sluice.ConfigException;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The {@link Limited} annotations of an application as its CDI extension found them, and what is wrong with
 * them: shared by the portable {@link SluiceExtension} and the build-compatible {@link SluiceBuildExtension}, so
 * both report exactly the same deployment problems. Thread-safe.
 */
final class LimitedUsages {
    /** Where a {@code @Limited} stands ("com.x.Foo" or "com.x.Foo.bar") and the rules it names. */
    private record Usage(String where, List<String> names) {
    }

    private final List<Usage> usages = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    /** A {@code @Limited} on {@code where} naming {@code names}. */
    synchronized void limited(String where, List<String> names) {
        usages.add(new Usage(where, List.copyOf(names)));
    }

    /** The method {@code where} has {@code count} {@code @LimitKey} parameters. */
    synchronized void limitKeys(String where, long count) {
        if (count > 1) problems.add("@LimitKey on " + count + " parameters of " + where + ": expected at most one");
    }

    /** Parameter types a {@link LimitCost} may have, by name (as both CDI flavours spell them). */
    private static final Set<String> COST_TYPES = Set.of("int", "long", "java.lang.Integer", "java.lang.Long");

    /**
     * The method {@code where} has {@link LimitCost} on the parameters of these types (in order, as names such as
     * {@code int} or {@code java.lang.String}).
     */
    synchronized void limitCosts(String where, List<String> types) {
        if (types.size() > 1) {
            problems.add("@LimitCost on " + types.size() + " parameters of " + where + ": expected at most one");
        }
        for (String type : types) {
            if (!COST_TYPES.contains(type)) {
                problems.add("@LimitCost on a parameter of type " + type + " of " + where
                        + ": expected an int or long parameter (the permits the call takes)");
            }
        }
    }

    /** Every deployment problem, given the rules the interceptor will use (only asked for if a rule is named). */
    List<String> problems(Supplier<RuleSet> rulesSource) {
        List<String> found;
        List<Usage> used;
        synchronized (this) {
            found = new ArrayList<>(problems);
            used = new ArrayList<>(usages);
        }
        if (used.stream().allMatch(u -> u.names().isEmpty())) return found;
        RuleSet rules;
        try {
            rules = rulesSource.get();
        } catch (ConfigException e) {
            found.add("Sluice rules file is invalid: " + e.getMessage());
            return found;
        } catch (RuntimeException e) {
            found.add("No usable Sluice for @Limited: " + e);
            return found;
        }
        List<String> known = rules.all().stream().map(Rule::name).toList();
        Set<String> reported = new HashSet<>();
        for (Usage u : used) {
            for (String name : u.names()) {
                if (rules.get(name).isEmpty() && reported.add(u.where() + "\0" + name)) {
                    found.add("@Limited on " + u.where() + " names unknown rule '" + name + "'; rules are: " + known);
                }
            }
        }
        return found;
    }
}
