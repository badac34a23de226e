package io.sluice.redisson;

import java.util.List;

/**
 * Redisson's naming of an object's sub-keys and channels, which Sluice's scripts share so that Redisson's own objects
 * of the same name read and change the same state.
 */
final class RedissonNames {
    /** The sub-key of a semaphore's tombstones: permits released before their acquire arrived, until their lease ends. */
    private static final String RELEASED = "released";

    private RedissonNames() {
    }

    /** An object's sub-key: {@code {name}:suffix}, in the same cluster slot as {@code name}. */
    static String suffix(String name, String suffix) {
        return "{" + name + "}:" + suffix;
    }

    /** The channel Redisson's waiting acquirers listen on. */
    static String channel(String name) {
        return "redisson_sc:{" + name + "}";
    }

    /**
     * The channel Sluice's waiting acquirers listen on: the leases still held, after a release or a reclaimed lease.
     * Named under Redisson's channel of the semaphore so that an ACL written for that one (documented) covers it.
     */
    static String wakeChannel(String name) {
        return channel(name) + ":held";
    }

    /** A semaphore's keys and channels as the acquire and release scripts take them. */
    static List<Object> semaphore(String name) {
        return List.of(name, suffix(name, "timeout"), channel(name), suffix(name, RELEASED), wakeChannel(name));
    }

    /** A sliding log's state besides its configuration: Redisson's limiter's value and permits. */
    static List<Object> log(String name) {
        return List.of(suffix(name, "value"), suffix(name, "permits"));
    }
}
