package io.sluice.redisson;

import io.sluice.rule.Durations;
import io.sluice.spi.Algorithm;

import java.time.Duration;

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

    /**
     * The Redis key of a rate rule's state for one key value.
     *
     * @param prefix    {@code sluice.key-prefix}
     * @param rule      the rule's name
     * @param algorithm how the rule counts
     * @param period    the rule's period
     * @param hashedKey the key value, hashed
     * @return the key's name in Redis
     */
    public static String name(String prefix, String rule, Algorithm algorithm, Duration period, String hashedKey) {
        String name = rule + ":" + algorithm.id() + ":" + Durations.format(period) + ":" + hashedKey;
        return algorithm == Algorithm.SLIDING_LOG ? prefix + ":" + name : prefix + ":{" + name + "}";
    }

    /**
     * The key of a rate key's block ({@code block}): in the rate key's cluster slot, so that its decision's script
     * reaches both. A name with a hash tag keeps it; one without (a {@code sliding-log}'s, or a key named by hand)
     * becomes the tag, as Redisson names its sub-keys.
     *
     * @param rateKey the rate key
     * @return the block's key
     */
    public static String block(String rateKey) {
        return rateKey.contains("{") ? rateKey + ":block" : RedissonNames.suffix(rateKey, "block");
    }
}
