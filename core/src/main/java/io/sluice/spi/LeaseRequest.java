package io.sluice.spi;

import java.time.Duration;

/**
 * One concurrency permit to take from the semaphore stored under {@code key}.
 *
 * @param key   the backend key, already namespaced and free of user-supplied characters
 * @param limit permits in the semaphore
 * @param lease how long a permit lives unless renewed
 * @param waitTime how long to wait for a permit; zero for an immediate answer
 */
public record LeaseRequest(String key, int limit, Duration lease, Duration waitTime) {
}
