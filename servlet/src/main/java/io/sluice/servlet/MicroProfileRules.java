package io.sluice.servlet;

import io.sluice.ConfigException;
import io.sluice.rule.ConfigLoader;
import io.sluice.rule.RuleParser;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.ConfigValue;

import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The {@code sluice.*} properties of MicroProfile Config, as a rules file would hold them: the runtime's sources in
 * its own precedence (by default system properties, then environment variables, then
 * {@code microprofile-config.properties}; on Quarkus {@code application.properties} and profiles too), values
 * expanded by the runtime. The only class that touches the MicroProfile Config API: {@link ApplicationRules} loads
 * it only when the API is on the class path.
 *
 * <p>An environment variable names a property as MicroProfile Config maps it: upper case, {@code _} for every
 * {@code .} and {@code -} ({@code SLUICE_RULES_POSTS_RATE}, {@code SLUICE_KEY_PREFIX}). It overrides the property
 * of that name wherever it is written; one set nowhere else is given its dashes back from the property names
 * Sluice knows ({@link #DASHED}), so a rule name with a dash or an underscore can be set only in a file.
 */
final class MicroProfileRules {
    /** An environment variable's name; a property named so cannot be a {@code sluice.*} property. */
    private static final Pattern VARIABLE = Pattern.compile("SLUICE_[A-Z0-9_]+");
    private static final Pattern NOT_IN_VARIABLE = Pattern.compile("[^A-Z0-9]");
    /**
     * Every dashed word of a property name, as RuleParser knows them (MicroProfileRulesTest checks docs/rules.md):
     * an environment variable cannot carry the dash, so it is put back from here.
     */
    static final Set<String> DASHED = RuleParser.dashedWords();

    private MicroProfileRules() {
    }

    /** {@return whether the class path has an implementation of MicroProfile Config, not the API alone} */
    static boolean available(ClassLoader loader) {
        try {
            ConfigProvider.getConfig(loader);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** {@return the rules file {@code sluice.config} names in MicroProfile Config, or null} */
    static String location(ClassLoader loader) {
        return value(ConfigProvider.getConfig(loader), ConfigLoader.SYSTEM_PROPERTY).orElse(null);
    }

    /** {@return the {@code sluice.*} properties of the application's MicroProfile Config} */
    static Map<String, String> properties(ClassLoader loader) {
        return properties(ConfigProvider.getConfig(loader));
    }

    /** {@return the names of {@link #properties(ClassLoader)}, without reading their values} */
    static Set<String> names(ClassLoader loader) {
        return names(ConfigProvider.getConfig(loader));
    }

    /**
     * Every {@code sluice.*} property of {@code config} but {@code sluice.config} (the rules file's location, not a
     * rule), by name, values as the runtime resolves them.
     */
    static Map<String, String> properties(Config config) {
        // Sorted: the same properties give the same map, whatever order the runtime enumerates them in.
        Map<String, String> out = new TreeMap<>();
        for (String name : names(config)) value(config, name).ifPresent(v -> out.put(name, v));
        return out;
    }

    /**
     * The {@code sluice.*} names of {@code config}, an environment variable's by the property it names: the name
     * written in another source when there is one, else the name {@link #fromVariable} gives it. (SmallRye Config
     * also lists a variable set nowhere else under its dotted lower-case form, which loses the dashes: such a name
     * is read through the variable's own.)
     */
    static Set<String> names(Config config) {
        Set<String> all = new TreeSet<>();
        config.getPropertyNames().forEach(all::add);
        Set<String> variables = new TreeSet<>();
        for (String name : all) if (VARIABLE.matcher(name).matches()) variables.add(name);
        Set<String> names = new TreeSet<>();
        Set<String> variablesWritten = new TreeSet<>();
        for (String name : all) {
            if (!name.startsWith(RuleParser.PREFIX)) continue;
            String variable = variable(name);
            boolean fromVariable = variables.contains(variable);
            if (fromVariable && name.equals(dotted(variable))) continue;
            if (fromVariable) variablesWritten.add(variable);
            names.add(name);
        }
        for (String variable : variables) if (!variablesWritten.contains(variable)) names.add(fromVariable(variable));
        names.remove(ConfigLoader.SYSTEM_PROPERTY);
        return names;
    }

    /** The environment variable MicroProfile Config reads for a property: upper case, {@code _} for the rest. */
    private static String variable(String property) {
        return NOT_IN_VARIABLE.matcher(property.toUpperCase(Locale.ROOT)).replaceAll("_");
    }

    /** A variable's name as SmallRye Config lists it when no source writes the property. */
    private static String dotted(String variable) {
        return variable.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /**
     * The value MicroProfile Config gives the name (its environment variable included); empty when none, as an empty
     * value is in MicroProfile Config.
     *
     * @throws ConfigException for an expression the runtime cannot expand, such as {@code ${MISSING}} without a
     *                         default: MicroProfile Config would make the property vanish, which could drop a limit
     */
    private static Optional<String> value(Config config, String name) {
        ConfigValue value;
        try {
            value = config.getConfigValue(name);
        } catch (NoSuchElementException | IllegalArgumentException e) {
            // An implementation that throws where SmallRye Config resolves nothing; its message may hold the value.
            throw unresolved(name, "(not shown)");
        }
        String resolved = value.getValue();
        if (resolved != null) return resolved.isEmpty() ? Optional.empty() : Optional.of(resolved);
        String raw = value.getRawValue();
        if (raw == null || raw.isEmpty()) return Optional.empty();
        throw unresolved(name, "\"" + raw + "\"");
    }

    private static ConfigException unresolved(String name, String written) {
        return new ConfigException(name + " = " + written + ": expected a value MicroProfile Config can resolve (an"
                + " expression ${NAME} needs NAME set or a default, ${NAME:default})");
    }

    /** The property an environment variable such as {@code SLUICE_RULES_POSTS_ON_MISSING_KEY} names. */
    static String fromVariable(String variable) {
        String name = variable.toLowerCase(Locale.ROOT);
        // Longest first: no dashed name is part of another today, but the order must not depend on the set's.
        for (String dashed : DASHED.stream().sorted((a, b) -> b.length() - a.length()).toList()) {
            name = name.replace("_" + dashed.replace('-', '_') + "_", "_" + dashed + "_");
            if (name.endsWith("_" + dashed.replace('-', '_'))) {
                name = name.substring(0, name.length() - dashed.length()) + dashed;
            }
        }
        return name.replace('_', '.');
    }
}
