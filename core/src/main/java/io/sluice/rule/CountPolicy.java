package io.sluice.rule;

import io.sluice.Ending;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which requests keep the rate permits a rule took, by how they ended (the rule property {@code count}): every
 * request, failures, successes, or responses of listed statuses and classes ({@code 401,403}, {@code 4xx}). The rule
 * still decides before the request; an ending this policy does not count gives its permits back. Immutable and
 * thread-safe.
 *
 * @param kind     all, failure, success or a status list
 * @param statuses the listed statuses; empty unless {@code kind} is {@link Kind#STATUSES}
 * @param classes  the listed classes as their first status ({@code 4xx}: 400); empty unless {@link Kind#STATUSES}
 */
public record CountPolicy(Kind kind, Set<Integer> statuses, Set<Integer> classes) {

    /** What the policy counts. */
    public enum Kind {
        /** Every request (the default). */
        ALL,
        /** Failures only: a status of 400 or above, a thrown exception. */
        FAILURE,
        /** Successes only. */
        SUCCESS,
        /** Responses of the listed statuses and classes; in the interceptor (no status), every call. */
        STATUSES
    }

    /** Every request counts: what a rule without {@code count} does. */
    public static final CountPolicy ALL = new CountPolicy(Kind.ALL, Set.of(), Set.of());
    /** The form the rules file takes, for error messages. */
    public static final String EXPECTED = "all, failure, success, or HTTP statuses and classes such as 401,403 or 4xx";
    private static final int CLASS_WIDTH = 100;

    public CountPolicy {
        statuses = Set.copyOf(statuses);
        classes = Set.copyOf(classes);
    }

    /** {@return whether every request counts} */
    public boolean all() {
        return kind == Kind.ALL;
    }

    /**
     * Whether a request that ended so keeps its permits. A status list counts every call that has no status (the
     * interceptor's): it applies to HTTP responses only, and counting never gives free capacity.
     *
     * @param ending how the request ended
     * @return true when it counts
     */
    public boolean counts(Ending ending) {
        return switch (kind) {
            case ALL -> true;
            case FAILURE -> ending.failed();
            case SUCCESS -> !ending.failed();
            case STATUSES -> ending.httpStatus().isEmpty() || listed(ending.httpStatus().getAsInt());
        };
    }

    private boolean listed(int status) {
        return statuses.contains(status) || classes.contains(status / CLASS_WIDTH * CLASS_WIDTH);
    }

    /**
     * Parses the rules file's value.
     *
     * @param text the value of a {@code count} property
     * @return the policy, or empty when the text is none of {@link #EXPECTED}
     */
    public static Optional<CountPolicy> parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        switch (t) {
            case "all": return Optional.of(ALL);
            case "failure": return Optional.of(new CountPolicy(Kind.FAILURE, Set.of(), Set.of()));
            case "success": return Optional.of(new CountPolicy(Kind.SUCCESS, Set.of(), Set.of()));
            default: break;
        }
        Set<Integer> statuses = new TreeSet<>();
        Set<Integer> classes = new TreeSet<>();
        for (String part : t.split(",", -1)) {
            String p = part.trim();
            if (p.matches("[1-5]xx")) classes.add((p.charAt(0) - '0') * CLASS_WIDTH);
            else if (p.matches("[1-5]\\d\\d")) statuses.add(Integer.valueOf(p));
            else return Optional.empty();
        }
        return Optional.of(new CountPolicy(Kind.STATUSES, statuses, classes));
    }

    @Override
    public String toString() {
        if (kind != Kind.STATUSES) return kind.name().toLowerCase(Locale.ROOT);
        List<String> parts = new ArrayList<>();
        classes.stream().sorted().forEach(c -> parts.add(c / CLASS_WIDTH + "xx"));
        statuses.stream().sorted().forEach(s -> parts.add(Integer.toString(s)));
        return String.join(",", parts);
    }
}
