package io.sluice.filter;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.rule.HeaderStyle;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes the verdict into the response: rate-limit headers on every response a rule matched, and for a
 * rejection the status, {@code Retry-After} and an RFC 9457 problem body that names only the rule.
 */
final class ResponseWriter {
    private final HeaderStyle style;

    ResponseWriter(HeaderStyle style) {
        this.style = style;
    }

    void headers(Admission admission, HttpServletResponse response) {
        admission.headline().ifPresent(d -> headers(d, response));
    }

    private void headers(Decision d, HttpServletResponse response) {
        if (!d.hasCounts()) return;
        long remaining = Math.max(0, d.remaining());
        if (d.kind() == Decision.Kind.RATE) {
            if (style.legacy()) {
                response.setHeader("X-RateLimit-Limit", Long.toString(d.limit()));
                response.setHeader("X-RateLimit-Remaining", Long.toString(remaining));
                response.setHeader("X-RateLimit-Reset", Long.toString(d.resetSeconds()));
            }
            if (style.ietf()) {
                response.setHeader("RateLimit-Policy", "\"" + d.ruleName() + "\";q=" + d.limit() + ";w=" + windowSeconds(d));
                response.setHeader("RateLimit", "\"" + d.ruleName() + "\";r=" + remaining + ";t=" + d.resetSeconds());
            }
        } else if (style.ietf()) {
            response.setHeader("RateLimit-Policy", "\"" + d.ruleName() + "\";q=" + d.limit() + ";qu=\"concurrent-requests\"");
            response.setHeader("RateLimit", "\"" + d.ruleName() + "\";r=" + remaining);
        }
    }

    void reject(Admission admission, HttpServletResponse response) throws IOException {
        Decision d = admission.rejection().orElseThrow();
        int status = d.rule().status();
        long retryAfter = d.retryAfterSeconds();
        response.resetBuffer();
        response.setStatus(status);
        response.setHeader("Retry-After", Long.toString(retryAfter));
        headers(admission, response);
        byte[] body = problem(status, d.ruleName(), retryAfter).getBytes(StandardCharsets.UTF_8);
        response.setContentType("application/problem+json");
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }

    /** Rule names are {@code [A-Za-z0-9_-]+}, so nothing in the body needs escaping or can leak a key. */
    static String problem(int status, String rule, long retryAfterSeconds) {
        String title = title(status);
        return "{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status
                + ",\"detail\":\"Request limit reached. Retry after " + retryAfterSeconds + " second"
                + (retryAfterSeconds == 1 ? "" : "s") + ".\",\"violated-policies\":[\"" + rule + "\"]}";
    }

    private static long windowSeconds(Decision d) {
        return Math.max(1, (d.window().toMillis() + 999) / 1000);
    }

    /** With {@code about:blank}, RFC 9457 asks for the status's own phrase as the title. */
    static String title(int status) {
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
}
