package io.sluice.rule;

import java.util.Locale;

/**
 * {@code sluice.redis.transport}: the network transport of the Redis client Sluice builds for
 * {@code sluice.redis.address} (extension). Applications that pass their own client, or a Redisson YAML file, choose
 * theirs there.
 */
public enum RedisTransport {
    /** Linux's native epoll where its library is on the classpath and loads, else Java's NIO (the default). */
    AUTO,
    /** Java's NIO selector, on every platform. */
    NIO,
    /** Linux's native epoll: start-up fails where its library is missing or does not load. */
    EPOLL;

    /** The values {@code sluice.redis.transport} takes, for error messages. */
    public static final String EXPECTED = "auto, nio or epoll";

    /** The value as written in a rules file. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
