package io.sluice.spi;

/**
 * The backend answered and refused one request's arguments: an error that this request alone caused while the
 * store decided it (a number the store cannot take), not a sign that the store is failing. The engine decides such
 * a request by its rule (a rejection), never by {@code on-backend-failure}, and never counts it against the
 * backend's health (circuit breaker), nor against the key's or other keys' decisions queued behind it.
 * Immutable and thread-safe.
 */
public final class RequestRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message the store's error, with the key it was deciding
     */
    public RequestRefusedException(String message) {
        super(message);
    }
}
