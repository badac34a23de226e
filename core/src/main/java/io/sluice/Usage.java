package io.sluice;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a request of one key would see now under one rule, found without taking anything ({@link Sluice#usage}).
 * Immutable and thread-safe.
 *
 * @param rule        the rule's name
 * @param rate        the rule's rate limit for the key; empty when no rate applies to it (none, or an override of
 *                    {@code unlimited})
 * @param concurrency the rule's concurrency limit for the key; empty when none applies to it
 * @param blocked     the time the key's block ({@code block}) has left; {@link Duration#ZERO} when it is not blocked
 */
public record Usage(String rule, Optional<RateLimit> rate, Optional<ConcurrencyLimit> concurrency, Duration blocked) {

    /**
     * Checks that no component is null.
     *
     * @param rule        the rule's name
     * @param rate        the rule's rate limit for the key, or empty
     * @param concurrency the rule's concurrency limit for the key, or empty
     * @param blocked     the block's time left, or {@link Duration#ZERO}
     */
    public Usage {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(rate, "rate");
        Objects.requireNonNull(concurrency, "concurrency");
        Objects.requireNonNull(blocked, "blocked");
    }

    /**
     * Whether the key's block rejects its requests now.
     *
     * @return true while the block lasts
     */
    public boolean isBlocked() {
        return !blocked.isZero();
    }

    /**
     * A rate limit's use by the key, as the rate headers of its next request would count it before that request.
     *
     * @param limit     the rule's permits per period
     * @param remaining the permits the key may still take now (0 while blocked)
     * @param reset     the time until a permit frees ({@link Duration#ZERO} when none is taken)
     */
    public record RateLimit(long limit, long remaining, Duration reset) {
    }

    /**
     * A concurrency limit's use by the key.
     *
     * @param limit    the most requests of the key in flight
     * @param inFlight the key's requests holding a permit now, on every server
     */
    public record ConcurrencyLimit(int limit, int inFlight) {
    }
}
