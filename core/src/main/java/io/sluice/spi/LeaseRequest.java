package io.sluice.spi;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One concurrency permit to take from the semaphore stored under {@code key}, under the id the engine chose for
 * it. Because the engine knows the id before the backend answers, it can release a permit it gave up waiting for
 * (a deadline, a failed call) whatever the backend did with it: a release that reaches the store before the
 * acquire it undoes makes that later acquire take nothing. Acquiring again under an id already held takes nothing
 * more: one request, one permit.
 *
 * @param key      the backend key, already namespaced and free of user-supplied characters
 * @param limit    permits in the semaphore, as the request's plan limits it
 * @param lease    how long a permit lives unless renewed
 * @param waitTime how long to wait for a permit; zero for an immediate answer
 * @param permitId the permit's id: {@value #PERMIT_ID_BYTES} random bytes in lower-case hex
 */
public record LeaseRequest(String key, int limit, Duration lease, Duration waitTime, String permitId) {
    /** Bytes of a permit id: as many as Redisson's own semaphore uses, so its objects read Sluice's permits. */
    public static final int PERMIT_ID_BYTES = 16;

    /**
     * Checks the permit id: it reaches the store's scripts.
     *
     * @param key      the backend key, already namespaced and free of user-supplied characters
     * @param limit    permits in the semaphore, as the request's plan limits it
     * @param lease    how long a permit lives unless renewed
     * @param waitTime how long to wait for a permit; zero for an immediate answer
     * @param permitId the permit's id: {@value #PERMIT_ID_BYTES} random bytes in lower-case hex
     */
    public LeaseRequest {
        Objects.requireNonNull(permitId, "permitId");
        if (permitId.length() != 2 * PERMIT_ID_BYTES || !permitId.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
            throw new IllegalArgumentException("a permit id is " + 2 * PERMIT_ID_BYTES + " lower-case hex digits: " + permitId);
        }
    }

    /**
     * A request for a permit under a new id ({@link #newPermitId()}).
     *
     * @param key      the backend key, already namespaced and free of user-supplied characters
     * @param limit    permits in the semaphore, as the request's plan limits it
     * @param lease    how long a permit lives unless renewed
     * @param waitTime how long to wait for a permit; zero for an immediate answer
     */
    public LeaseRequest(String key, int limit, Duration lease, Duration waitTime) {
        this(key, limit, lease, waitTime, newPermitId());
    }

    /** {@return a new random permit id} */
    public static String newPermitId() {
        byte[] id = new byte[PERMIT_ID_BYTES];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /** {@return another permit of the same semaphore: the same request under a new id} */
    public LeaseRequest underNewId() {
        return new LeaseRequest(key, limit, lease, waitTime, newPermitId());
    }

    /**
     * The same permit under another limit (a reload changed it).
     *
     * @param newLimit the limit now
     * @return the request under {@code newLimit}
     */
    public LeaseRequest withLimit(int newLimit) {
        return newLimit == limit ? this : new LeaseRequest(key, newLimit, lease, waitTime, permitId);
    }
}
