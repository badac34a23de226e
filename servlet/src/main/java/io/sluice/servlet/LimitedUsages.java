package io.sluice.servlet;

import io.sluice.ConfigException;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The {@code @Limited} annotations of an application as its container found them, and what is wrong with them:
 * shared by CDI's portable and build-compatible extensions and by Spring's start-up check, so all report exactly
 * the same deployment problems. Thread-safe.
 */
public final class LimitedUsages {
    /** Parameter types a {@code @LimitCost} may have, by name (as both CDI flavours spell them). */
    private static final Set<String> COST_TYPES = Set.of("int", "long", "java.lang.Integer", "java.lang.Long");

    /** Where a {@code @Limited} stands ("com.x.Foo" or "com.x.Foo.bar") and the rules it names. */
    private record Usage(String where, List<String> names) {
    }

    /** A method with {@code count} {@code @LimitPlan} parameters, and the rules its {@code @Limited} names. */
    private record PlanUsage(String where, long count, List<String> names) {
    }

    private final List<Usage> usages = new ArrayList<>();
    private final List<PlanUsage> planUsages = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    /** A {@code @Limited} on {@code where} naming {@code names}. */
    public synchronized void limited(String where, List<String> names) {
        usages.add(new Usage(where, List.copyOf(names)));
    }

    /** The method {@code where} has {@code count} {@code @LimitKey} parameters. */
    public synchronized void limitKeys(String where, long count) {
        if (count > 1) problems.add("@LimitKey on " + count + " parameters of " + where + ": expected at most one");
    }

    /** Where each {@code @Limited} naming rules stands, and the rules it names: what a reload must keep. */
    public synchronized Map<String, List<String>> named() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Usage u : usages) if (!u.names().isEmpty()) out.merge("@Limited on " + u.where(), u.names(), LimitedUsages::union);
        return out;
    }

    private static List<String> union(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).distinct().toList();
    }

    /** The method {@code where}, limited by {@code names} (its own or its class's), has {@code count} {@code @LimitPlan}s. */
    public synchronized void limitPlans(String where, long count, List<String> names) {
        if (count == 0) return;
        if (count > 1) problems.add("@LimitPlan on " + count + " parameters of " + where + ": expected at most one");
        planUsages.add(new PlanUsage(where, count, List.copyOf(names)));
    }

    /**
     * The method {@code where} has {@code @LimitCost} on the parameters of these types (in order, as names such as
     * {@code int} or {@code java.lang.String}).
     */
    public synchronized void limitCosts(String where, List<String> types) {
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
    public List<String> problems(Supplier<RuleSet> rulesSource) {
        List<String> found;
        List<Usage> used;
        List<PlanUsage> planArguments;
        synchronized (this) {
            found = new ArrayList<>(problems);
            used = new ArrayList<>(usages);
            planArguments = new ArrayList<>(planUsages);
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
        for (PlanUsage p : planArguments) {
            List<Rule> named = p.names().stream().flatMap(n -> rules.get(n).stream()).toList();
            if (!named.isEmpty() && named.stream().noneMatch(r -> r.plans().any())) {
                found.add("@LimitPlan on " + p.where() + ": expected a method whose @Limited rules have plans; "
                        + p.names() + " have no sluice.rules.<name>.plans.<plan>.*");
            }
        }
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
