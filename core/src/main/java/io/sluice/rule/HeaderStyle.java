package io.sluice.rule;

/** Which rate-limit response headers are written. */
public enum HeaderStyle {
    /** Both {@link #IETF} and {@link #LEGACY}. */
    ALL,
    /** {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers). */
    IETF,
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
    LEGACY,
    /** None; a rejection still carries {@code Retry-After}. */
    NONE;

    public boolean ietf() {
        return this == ALL || this == IETF;
    }

    public boolean legacy() {
        return this == ALL || this == LEGACY;
    }
}
