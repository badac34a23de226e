package io.sluice.spi;

import java.time.Duration;

/**
 * One rate decision to make: take {@code cost} permits from the limit stored under {@code key}.
 *
 * @param key    the backend key, already namespaced and free of user-supplied characters
 * @param limit  permits per period
 * @param period the sliding window
 * @param cost   permits this request takes
 */
public record RateRequest(String key, long limit, Duration period, long cost) {
}
