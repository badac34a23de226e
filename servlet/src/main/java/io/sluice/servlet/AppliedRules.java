package io.sluice.servlet;

import io.sluice.rule.Rule;
import jakarta.servlet.ServletException;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rules the servlet filter applied to the request this thread is serving, so a {@code @Limited} bean called
 * while serving it does not count the same rule a second time: one request, one count per rule. Kept per
 * thread, not on the request, because the request as CDI offers it is not reliable on every server; work the
 * application hands to other threads is not covered.
 */
public final class AppliedRules {
    private static final ThreadLocal<Set<String>> CURRENT = new ThreadLocal<>();

    /** The rest of a filter chain. */
    @FunctionalInterface
    public interface Chain {
        void proceed() throws IOException, ServletException;
    }

    private AppliedRules() {
    }

    /** Runs {@code chain} with {@code rules} recorded as applied to the request on this thread. */
    public static void during(List<Rule> rules, Chain chain) throws IOException, ServletException {
        Set<String> outer = CURRENT.get();
        CURRENT.set(rules.stream().map(Rule::name).collect(Collectors.toUnmodifiableSet()));
        try {
            chain.proceed();
        } finally {
            if (outer == null) CURRENT.remove();
            else CURRENT.set(outer);
        }
    }

    /** The names of the rules the filter applied to the request this thread serves; empty if none. */
    public static Set<String> current() {
        Set<String> names = CURRENT.get();
        return names == null ? Set.of() : names;
    }
}
