package io.sluice.spi;

import java.time.Duration;

/**
 * A backend's capability to name the keys of rate state in its store (Redis hash tags, say) from their logical
 * parts. Without it, the engine joins the parts with colons.
 */
public interface KeyLayout {

    /**
     * The name of a rate rule's state for one key value; the same parts always give the same name, and different
     * parts never do.
     *
     * @param prefix    the namespace of every key ({@code sluice.key-prefix})
     * @param rule      the rule's name
     * @param algorithm how the rule counts
     * @param period    the rule's period
     * @param hashedKey the key value, hashed: free of user-supplied characters
     * @return the key's name in the store
     */
    String rateKey(String prefix, String rule, Algorithm algorithm, Duration period, String hashedKey);
}
