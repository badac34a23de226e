package io.sluice.key;

import java.util.Locale;
import java.util.Optional;

/**
 * Where a request's plan comes from: a rule's {@code plan} property, such as {@code header:X-Plan}. The value
 * it reads is raw and unchecked: only the rule's own plan names are ever looked up with it, and it never
 * reaches a backend or a log. Immutable and thread-safe.
 *
 * @param kind what is read
 * @param name the header, request attribute, query parameter or cookie
 */
public record PlanSource(Kind kind, String name) {
    /** The expected form of {@code plan}, for error messages. */
    public static final String EXPECTED = "header:<Name>, attribute:<name>, param:<name> or cookie:<name>, such as header:X-Plan";

    /** What part of the request holds the plan. */
    public enum Kind {
        /** A request header. */
        HEADER,
        /** A request attribute set by the application (its {@code toString()}). */
        ATTRIBUTE,
        /** A query-string parameter (never the body). */
        PARAM,
        /** A cookie. */
        COOKIE
    }

    /**
     * Parses {@code header:X-Plan}, {@code attribute:com.acme.plan}, {@code param:plan} or {@code cookie:plan}.
     *
     * @param text the property's value
     * @return the source, or empty when the text is not one of those forms
     */
    public static Optional<PlanSource> parse(String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        if (colon < 0) return Optional.empty();
        String kind = t.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String name = t.substring(colon + 1).trim();
        return Optional.ofNullable(switch (kind) {
            case "header" -> KeySpec.isToken(name) ? new PlanSource(Kind.HEADER, name) : null;
            case "cookie" -> KeySpec.isToken(name) ? new PlanSource(Kind.COOKIE, name) : null;
            case "param" -> visible(name, "&=") ? new PlanSource(Kind.PARAM, name) : null;
            case "attribute" -> visible(name, "") ? new PlanSource(Kind.ATTRIBUTE, name) : null;
            default -> null;
        });
    }

    /** Non-empty printable ASCII without spaces and without the given characters. */
    private static boolean visible(String name, String excluded) {
        return !name.isEmpty() && name.chars().allMatch(c -> c > ' ' && c < 0x7f && excluded.indexOf(c) < 0);
    }

    /**
     * The plan value of the request, as it is (the caller only compares it with plan names).
     *
     * @param request the request
     * @return the value, or null when the request has none
     */
    public String resolve(RequestView request) {
        String v = switch (kind) {
            case HEADER -> request.header(name);
            case ATTRIBUTE -> request.attribute(name);
            case PARAM -> QueryString.first(request.queryString(), name);
            case COOKIE -> request.cookie(name);
        };
        return v == null || v.isEmpty() ? null : v;
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(Locale.ROOT) + ":" + name;
    }
}
