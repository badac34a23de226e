package io.sluice.rule;

import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${NAME}} and {@code ${NAME:default}} in the values of a rules file: the system property {@code NAME},
 * else the environment variable {@code NAME}, else the default. So one packaged rules file (in a WAR, say)
 * serves every environment. Resolved by the parser, which keeps the value as written for its messages: a
 * placeholder often stands for a secret, so an error shows {@code ${NAME}}, never what it resolved to.
 * Immutable and thread-safe.
 */
final class Placeholders {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)(?::([^}]*))?}");
    /** The system properties and environment variables of this JVM. */
    static final Placeholders SYSTEM = new Placeholders(System::getProperty, System::getenv);

    private final UnaryOperator<String> systemProperties;
    private final UnaryOperator<String> environment;

    Placeholders(UnaryOperator<String> systemProperties, UnaryOperator<String> environment) {
        this.systemProperties = systemProperties;
        this.environment = environment;
    }

    /** Whether the value as written holds a placeholder. */
    static boolean present(String value) {
        return value != null && PLACEHOLDER.matcher(value).find();
    }

    /**
     * The value with every placeholder replaced (replacements are taken literally, never as further
     * placeholders). A placeholder with neither a value nor a default is reported, naming only itself, and
     * stays as written.
     */
    String resolve(String property, String value, List<String> problems) {
        Matcher m = PLACEHOLDER.matcher(value);
        StringBuilder resolved = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String replacement = firstNonNull(systemProperties.apply(name), environment.apply(name), m.group(2));
            if (replacement == null) {
                problems.add(property + " = \"" + m.group() + "\": expected a system property or environment variable "
                        + name + ", or a default as in ${" + name + ":value}");
                replacement = m.group();
            }
            m.appendReplacement(resolved, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(resolved);
        return resolved.toString();
    }

    private static String firstNonNull(String... values) {
        for (String v : values) if (v != null) return v;
        return null;
    }
}
