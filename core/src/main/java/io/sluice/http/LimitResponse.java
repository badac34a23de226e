package io.sluice.http;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.rule.HeaderStyle;

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

    /** The problem+json body of a rejection by {@code d}. */
    public static String problem(Decision d) {
        if (d.neverFits()) return problem(d.rule().status(), d.ruleName(), neverFitsDetail(d));
        return problem(d.rule().status(), d.ruleName(), d.retryAfterSeconds());
    }

    /** Rule names are {@code [A-Za-z0-9_-]+}, so nothing in the body needs escaping or can leak a key. */
    public static String problem(int status, String rule, long retryAfterSeconds) {
        return problem(status, rule, "Request limit reached. Retry after " + retryAfterSeconds + " second"
                + (retryAfterSeconds == 1 ? "" : "s") + ".");
    }

    /**
     * The detail of a request that costs more than its rule ever admits: waiting does not help, a smaller request
     * would. Only numbers and the rule name, which need no escaping.
     */
    private static String neverFitsDetail(Decision d) {
        return "This request costs " + d.cost() + " permits, more than rule '" + d.ruleName()
                + "' ever admits; it can never be admitted.";
    }

    private static String problem(int status, String rule, String detail) {
        return "{\"type\":\"about:blank\",\"title\":\"" + title(status) + "\",\"status\":" + status
                + ",\"detail\":\"" + detail + "\",\"violated-policies\":[\"" + rule + "\"]}";
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
