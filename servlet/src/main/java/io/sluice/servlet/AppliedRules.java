package io.sluice.servlet;

import io.sluice.rule.Rule;
import jakarta.servlet.ServletRequest;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rules the servlet filter applied to a request, kept on the request, so a {@code @Limited} bean called
 * while serving it does not count the same rule a second time: one request, one count per rule.
 */
public final class AppliedRules {
    private static final String ATTRIBUTE = AppliedRules.class.getName();

    private AppliedRules() {
    }

    /** Records that the filter applies {@code rules} to {@code request}. */
    public static void record(ServletRequest request, List<Rule> rules) {
        request.setAttribute(ATTRIBUTE, rules.stream().map(Rule::name).collect(Collectors.toUnmodifiableSet()));
    }

    /** The names of the rules the filter applied to {@code request}; empty if none or no filter. */
    @SuppressWarnings("unchecked")
    public static Set<String> of(ServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof Set<?> names ? (Set<String>) names : Set.of();
    }
}
