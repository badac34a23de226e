package io.sluice.spring;

import io.sluice.rule.RuleParser;
import io.sluice.rule.RulesSource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code sluice.*} properties of Spring's {@link ConfigurableEnvironment}, as a rules file would hold them:
 * {@code application.properties} and {@code application.yaml} (profiles included), system properties, command-line
 * arguments and environment variables, with Spring's precedence and its {@code ${...}} placeholders resolved (a YAML
 * list becomes the comma-separated value of the rules file). The
 * map goes to the same {@link RuleParser} as a rules file, so names, defaults and start-up errors are the same, and
 * an unknown {@code sluice.*} property fails start-up. As a {@link RulesSource}, the Environment is read again on
 * every {@code Sluice.reload()}.
 *
 * <p>An environment variable names a property as Spring's relaxed binding does: upper case, {@code _} for
 * {@code .}, dashes left out ({@code SLUICE_RULES_POSTS_RATE}, {@code SLUICE_KEYPREFIX}). It overrides the
 * property of that name wherever it is written; one set nowhere else is given its dashes back from the
 * property names Sluice knows ({@link #DASHED}), so a rule name with a dash can be set only in a file.
 */
public final class EnvironmentRules {
    private static final String ENV_PREFIX = "SLUICE_";
    /** An element of a list, such as {@code sluice.rules.posts.methods[1]}. */
    private static final Pattern LIST_ELEMENT = Pattern.compile("(.+)\\[(\\d+)]");
    /**
     * Every dashed word of a property name, as RuleParser knows them (EnvironmentRulesTest checks docs/rules.md):
     * an environment variable cannot carry the dash, so it is put back from here.
     */
    static final Set<String> DASHED = RuleParser.dashedWords();

    private EnvironmentRules() {
    }

    /**
     * The Environment as a rules source: read when the engine is built and again on every reload.
     *
     * @param environment the application's environment
     * @return the source
     */
    public static RulesSource source(ConfigurableEnvironment environment) {
        return RulesSource.of(() -> properties(environment));
    }

    /**
     * Every {@code sluice.*} property of the Environment, resolved, by the name it is written under.
     *
     * @param environment the application's environment
     * @return the properties, in the order of their names' first appearance by precedence
     */
    public static Map<String, String> properties(ConfigurableEnvironment environment) {
        // Names first, as written (the first source by precedence decides); values then through the Environment,
        // which applies precedence across sources, relaxed names and placeholders.
        Map<String, String> byRelaxedName = new LinkedHashMap<>();
        // A YAML list (methods: [GET, HEAD]) is sluice...methods[0], [1]: the elements of the first source that
        // has the list, in index order, as the comma-separated value a rules file holds.
        Map<String, SortedMap<Integer, String>> lists = new HashMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> enumerable)) continue;
            boolean variables = StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(source.getName());
            Map<String, SortedMap<Integer, String>> listsHere = new HashMap<>();
            for (String name : enumerable.getPropertyNames()) {
                String property = variables ? fromVariable(name) : name.startsWith(RuleParser.PREFIX) ? name : null;
                if (property == null) continue;
                Matcher element = LIST_ELEMENT.matcher(property);
                if (element.matches()) {
                    property = element.group(1);
                    listsHere.computeIfAbsent(property, p -> new TreeMap<>()).put(Integer.valueOf(element.group(2)), name);
                }
                byRelaxedName.putIfAbsent(relaxed(property), property);
            }
            listsHere.forEach(lists::putIfAbsent);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String property : byRelaxedName.values()) {
            SortedMap<Integer, String> elements = lists.get(property);
            String value = elements == null ? environment.getProperty(property)
                    : String.join(",", elements.values().stream().map(environment::getProperty).toList());
            if (value != null) out.put(property, value);
        }
        return out;
    }

    /** The property an environment variable such as {@code SLUICE_RULES_POSTS_ONMISSINGKEY} names, or null. */
    static String fromVariable(String variable) {
        if (!variable.startsWith(ENV_PREFIX)) return null;
        String[] parts = variable.toLowerCase(Locale.ROOT).split("_");
        StringBuilder name = new StringBuilder();
        for (String part : parts) {
            if (!name.isEmpty()) name.append('.');
            name.append(dashed(part));
        }
        return name.toString();
    }

    private static String dashed(String part) {
        for (String known : DASHED) if (known.replace("-", "").equals(part)) return known;
        return part;
    }

    /** The name as relaxed binding compares it: lower case, without dashes. */
    private static String relaxed(String property) {
        return property.replace("-", "").toLowerCase(Locale.ROOT);
    }
}
