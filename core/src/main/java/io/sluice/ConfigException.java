package io.sluice;

import java.util.List;

/**
 * A rules file that cannot be used. Carries every problem found, each naming the property, the bad
 * value and the expected form, so that one start-up shows them all.
 *
 * <p>Immutable and thread-safe.
 */
public final class ConfigException extends RuntimeException {
    /** One line per problem. */
    private final List<String> problems;

    /**
     * A configuration with these problems.
     *
     * @param problems one line per problem, each naming the property, the value as written and the expected form
     */
    public ConfigException(List<String> problems) {
        super(format(problems));
        this.problems = List.copyOf(problems);
    }

    /**
     * A configuration with one problem.
     *
     * @param problem the property, the value as written and the expected form
     */
    public ConfigException(String problem) {
        this(List.of(problem));
    }

    /** {@return one line per problem, in the order of the properties} */
    public List<String> problems() {
        return problems;
    }

    private static String format(List<String> problems) {
        if (problems.size() == 1) {
            return "Invalid Sluice configuration: " + problems.get(0);
        }
        StringBuilder sb = new StringBuilder("Invalid Sluice configuration (" + problems.size() + " problems):");
        for (String p : problems) {
            sb.append("\n  - ").append(p);
        }
        return sb.toString();
    }
}
