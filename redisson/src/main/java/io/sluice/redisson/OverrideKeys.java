package io.sluice.redisson;

import java.util.List;

/**
 * Where the overrides live in Redis: one hash of every rule's overrides and its version, under one hash tag so that
 * the scripts reach both in one cluster slot (and inside the {@code {<prefix>:*} ACL pattern docs/storage-and-failures.md
 * gives).
 */
final class OverrideKeys {
    private OverrideKeys() {
    }

    /** The overrides' hash, then their version. */
    static List<Object> of(String prefix) {
        String hash = "{" + prefix + ":overrides}";
        return List.of(hash, hash + ":version");
    }

    /** A hash field: the rule (no colon in its name) and the hashed key. */
    static String field(String rule, String hashedKey) {
        return rule + ":" + hashedKey;
    }
}
