package io.sluice.internal;

import io.sluice.rule.Durations;
import io.sluice.rule.Rate;
import io.sluice.spi.Algorithm;

/**
 * Redis key names of rate state. A {@code sliding-log} key keeps the layout Sluice always had (the rate is in
 * the name, so an edited rate starts a fresh Redisson limiter instead of being ignored). Every other
 * algorithm's key carries the rule, the algorithm and the period but not the limit: algorithms never share
 * state (a changed algorithm starts fresh), and a changed limit (reload, plans) keeps the usage, which the
 * scripts rescale. The whole name is one hash tag, so a decision's key names one cluster slot whatever the
 * algorithm adds to it. {@code hashedKey} is already free of user-supplied characters.
 */
public final class RateKeys {
    private RateKeys() {
    }

    public static String name(String prefix, String rule, Algorithm algorithm, Rate rate, String hashedKey) {
        if (algorithm == Algorithm.SLIDING_LOG) {
            return prefix + ":" + rule + ":r" + rate.permits() + "-" + rate.period().toMillis() + ":" + hashedKey;
        }
        return prefix + ":{" + rule + ":" + algorithm.id() + ":" + Durations.format(rate.period()) + ":" + hashedKey + "}";
    }
}
