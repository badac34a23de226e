package io.sluice.internal;

import io.sluice.rule.Durations;
import io.sluice.rule.Rate;
import io.sluice.spi.Algorithm;

/**
 * Redis key names of rate state. Every key carries the rule, the algorithm and the period but not the limit:
 * algorithms never share state (a changed algorithm or period starts fresh), and a changed limit (reload,
 * plans) keeps the usage, which the scripts rescale. A {@code sliding-log} key is a Redisson
 * {@code RRateLimiter} name, without braces: Redisson puts its sub-keys in {@code {name}:...}, the same
 * cluster slot. Every other algorithm's whole name is one hash tag, so a decision's key names one cluster
 * slot whatever the algorithm adds to it. {@code hashedKey} is already free of user-supplied characters.
 */
public final class RateKeys {
    private RateKeys() {
    }

    public static String name(String prefix, String rule, Algorithm algorithm, Rate rate, String hashedKey) {
        String name = rule + ":" + algorithm.id() + ":" + Durations.format(rate.period()) + ":" + hashedKey;
        return algorithm == Algorithm.SLIDING_LOG ? prefix + ":" + name : prefix + ":{" + name + "}";
    }
}
