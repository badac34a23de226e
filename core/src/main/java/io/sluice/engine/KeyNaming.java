package io.sluice.engine;

import io.sluice.key.KeyResolver;
import io.sluice.rule.Durations;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.spi.KeyLayout;
import io.sluice.spi.LimiterBackend;

import java.time.Duration;

/**
 * The backend key of each rule and key value: the prefix, the rule, what is limited and the hashed value. The
 * resolved value is always hashed, so no user-supplied character reaches the store. A rate key is named by the
 * backend's {@link KeyLayout} when it has one. Immutable and thread-safe.
 */
public final class KeyNaming {
    private final String prefix;
    private final KeyLayout layout;

    public KeyNaming(String prefix, LimiterBackend backend) {
        this.prefix = prefix;
        this.layout = backend instanceof KeyLayout own ? own : KeyNaming::joined;
    }

    /** The rate state of the rule's algorithm for the key: every part that must not share state, not the limit. */
    public String rate(Rule rule, String raw) {
        return layout.rateKey(prefix, rule.name(), rule.ratePolicy().algorithm(), rule.rate().orElseThrow().period(),
                KeyResolver.hash(raw));
    }

    /**
     * The semaphore of the rule's concurrency for the key. The limit is not in the name: a changed limit keeps the
     * permits held, and the scripts change the free count by the difference.
     */
    public String lease(Rule rule, String raw) {
        return prefix + ":" + rule.name() + ":concurrency:" + KeyResolver.hash(raw);
    }

    /** A rate key for a backend without a layout of its own: the parts, joined by colons. */
    private static String joined(String prefix, String rule, Algorithm algorithm, Duration period, String hashedKey) {
        return prefix + ":" + rule + ":" + algorithm.id() + ":" + Durations.format(period) + ":" + hashedKey;
    }
}
