package io.sluice.testing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The headers docs/http-responses.md promises, to compare with what a server sent: for a rate rule,
 * legacy {@code X-RateLimit-*} and the IETF draft {@code RateLimit-Policy} / {@code RateLimit}; for a
 * concurrency rule, the IETF draft ones only.
 */
public final class RateLimitHeaders {
    private RateLimitHeaders() {
    }

    /** An admitted request of rule {@code rule} ({@code limit} per {@code windowSeconds}) with permits left. */
    public static Map<String, String> admitted(String rule, int limit, long windowSeconds, int remaining, long resetSeconds) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("X-RateLimit-Limit", Integer.toString(limit));
        h.put("X-RateLimit-Remaining", Integer.toString(remaining));
        h.put("X-RateLimit-Reset", Long.toString(resetSeconds));
        h.put("RateLimit-Policy", "\"" + rule + "\";q=" + limit + ";w=" + windowSeconds);
        h.put("RateLimit", "\"" + rule + "\";r=" + remaining + ";t=" + resetSeconds);
        return h;
    }

    /** A rejection: nothing left, and {@code Retry-After} equal to the reset. */
    public static Map<String, String> rejected(String rule, int limit, long windowSeconds, long retryAfterSeconds) {
        Map<String, String> h = new LinkedHashMap<>(admitted(rule, limit, windowSeconds, 0, retryAfterSeconds));
        h.put("Retry-After", Long.toString(retryAfterSeconds));
        return h;
    }

    /** A rejection by a concurrency rule of {@code limit} slots: none free, retry in a second. */
    public static Map<String, String> concurrencyRejected(String rule, int limit) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Retry-After", "1");
        h.put("RateLimit-Policy", "\"" + rule + "\";q=" + limit + ";qu=\"concurrent-requests\"");
        h.put("RateLimit", "\"" + rule + "\";r=0");
        return h;
    }
}
