package io.sluice.rule;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The parsed rules file: global settings and every rule, in name order. Immutable and thread-safe.
 */
public final class RuleSet {
    private final Settings settings;
    private final Map<String, Rule> rules;
    private final List<Rule> filterRules;

    public RuleSet(Settings settings, List<Rule> rules) {
        this.settings = settings;
        Map<String, Rule> byName = new LinkedHashMap<>();
        rules.stream().sorted(Comparator.comparing(Rule::name)).forEach(r -> byName.put(r.name(), r));
        this.rules = Collections.unmodifiableMap(byName);
        this.filterRules = this.rules.values().stream().filter(r -> !r.paths().isEmpty()).toList();
    }

    public Settings settings() {
        return settings;
    }

    /** Every rule, in name order. */
    public List<Rule> all() {
        return List.copyOf(rules.values());
    }

    public Optional<Rule> get(String name) {
        return Optional.ofNullable(rules.get(name));
    }

    /** The rules whose {@code paths} and {@code methods} match, in name order. */
    public List<Rule> matching(String method, String path) {
        List<Rule> out = null;
        for (Rule r : filterRules) {
            if (r.matches(method, path)) {
                if (out == null) out = new ArrayList<>(2);
                out.add(r);
            }
        }
        return out == null ? List.of() : out;
    }
}
