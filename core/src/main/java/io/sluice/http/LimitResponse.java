package io.sluice.http;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.rule.HeaderStyle;
import io.sluice.rule.Rule;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What Sluice answers over HTTP, as names and strings with no HTTP API behind them: the rate-limit headers
 * of a decision, and for a rejection its status, {@code Retry-After} and RFC 9457 problem body naming only
 * the rule. The servlet filter and the Jakarta REST exception mapper both write exactly this.
 */
public final class LimitResponse {
    /** The media type of the rejection body. */
    public static final String PROBLEM_JSON = "application/problem+json";
    /** The problem body's member naming the rule that rejected (an extension member, as a list of one name). */
    public static final String VIOLATED_POLICIES = "violated-policies";

    private LimitResponse() {
    }

    /** The rate-limit headers for the admission's headline decision (none if it has no counts), in writing order. */
    public static Map<String, String> headers(Admission admission, HeaderStyle style) {
        return admission.headline().map(d -> headers(d, style)).orElseGet(LinkedHashMap::new);
    }

    /** The rate-limit headers of one decision, in writing order; none when its numbers are not the backend's. */
    public static Map<String, String> headers(Decision d, HeaderStyle style) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (!d.hasCounts()) return headers;
        long remaining = Math.max(0, d.remaining());
        if (d.kind() == Decision.Kind.RATE) {
            if (style.legacy()) {
                headers.put("X-RateLimit-Limit", Long.toString(d.limit()));
                headers.put("X-RateLimit-Remaining", Long.toString(remaining));
                headers.put("X-RateLimit-Reset", Long.toString(d.resetSeconds()));
            }
            if (style.ietf()) {
                headers.put("RateLimit-Policy", "\"" + d.ruleName() + "\";q=" + d.limit() + ";w=" + windowSeconds(d));
                headers.put("RateLimit", "\"" + d.ruleName() + "\";r=" + remaining + ";t=" + d.resetSeconds());
            }
        } else if (style.ietf()) {
            headers.put("RateLimit-Policy", "\"" + d.ruleName() + "\";q=" + d.limit() + ";qu=\"concurrent-requests\"");
            headers.put("RateLimit", "\"" + d.ruleName() + "\";r=" + remaining);
        }
        return headers;
    }

    /** Every header of a rejection by {@code d}: {@code Retry-After}, then the rate-limit headers. */
    public static Map<String, String> rejectionHeaders(Decision d, HeaderStyle style) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Retry-After", Long.toString(d.retryAfterSeconds()));
        headers.putAll(headers(d, style));
        return headers;
    }

    /** The problem+json body of a rejection by {@code d}, whose {@code type} is the rule's {@code problem-type}. */
    public static String problem(Decision d) {
        return body(d.rule().problemType(), d.rule().status(), d.ruleName(), detail(d));
    }

    /** The {@code detail} of the problem body of a rejection by {@code d}, for boundaries that build their own body. */
    public static String detail(Decision d) {
        return d.neverFits() ? neverFitsDetail(d) : retryDetail(d.retryAfterSeconds());
    }

    /** The problem+json body of a rejection by {@code rule}, of type {@code about:blank}. */
    public static String problem(int status, String rule, long retryAfterSeconds) {
        return problem(Rule.DEFAULT_PROBLEM_TYPE, status, rule, retryAfterSeconds);
    }

    /**
     * The problem+json body of a rejection. Rule names are {@code [A-Za-z0-9_-]+} and problem types are URIs of
     * printable ASCII without quotes or backslashes (the parser checks both), so nothing in the body needs
     * escaping or can leak a key. The title stays the status's phrase whatever the type.
     */
    public static String problem(String type, int status, String rule, long retryAfterSeconds) {
        return body(type, status, rule, retryDetail(retryAfterSeconds));
    }

    /** The {@code detail} of the problem body of a rejection that may succeed after {@code retryAfterSeconds}. */
    public static String retryDetail(long retryAfterSeconds) {
        return "Request limit reached. Retry after " + retryAfterSeconds + " second" + (retryAfterSeconds == 1 ? "" : "s") + ".";
    }

    /**
     * The detail of a request that costs more than its rule ever admits: waiting does not help, a smaller request
     * would. Only numbers and the rule name, which need no escaping.
     */
    private static String neverFitsDetail(Decision d) {
        return "This request costs " + d.cost() + " permits, more than rule '" + d.ruleName()
                + "' ever admits; it can never be admitted.";
    }

    private static String body(String type, int status, String rule, String detail) {
        return "{\"type\":\"" + type + "\",\"title\":\"" + title(status) + "\",\"status\":" + status
                + ",\"detail\":\"" + detail + "\",\"" + VIOLATED_POLICIES + "\":[\"" + rule + "\"]}";
    }

    /** With {@code about:blank}, RFC 9457 asks for the status's own phrase as the title. */
    public static String title(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 403 -> "Forbidden";
            case 409 -> "Conflict";
            case 420 -> "Enhance Your Calm";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> status < 500 ? "Client Error" : "Server Error";
        };
    }

    private static long windowSeconds(Decision d) {
        return Math.max(1, (d.window().toMillis() + 999) / 1000);
    }
}
