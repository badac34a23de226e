package io.sluice.redisson;

import io.sluice.rule.Settings;
import io.sluice.spi.BackendProvider;
import io.sluice.spi.LimiterBackend;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Makes a {@link RedissonBackend}: on a client of its own for the Redis the rules file names, which is what an engine
 * built without a backend uses (this class is registered for {@link java.util.ServiceLoader}), or on an application's
 * own client ({@link #using}). Thread-safe.
 */
public final class RedissonBackendProvider implements BackendProvider {

    /** The provider {@link java.util.ServiceLoader} makes: each backend has a client of its own. */
    public RedissonBackendProvider() {
    }

    /**
     * A backend on a client of its own, configured by {@code sluice.redis.config} or {@code sluice.redis.address};
     * the client connects in the background and is shut down when the backend closes.
     */
    @Override
    public LimiterBackend create(Settings settings, ClassLoader classLoader, Clock clock, Duration clientTimeout) {
        return new RedissonBackend(RedissonClients.create(settings, classLoader), true, clock, clientTimeout);
    }

    /**
     * Backends on an application's own client, for {@code Sluice.builder().backend(...)}: Sluice uses the client as
     * it is configured and leaves it open when it closes.
     *
     * @param client the application's client
     * @return a provider of backends on that client
     */
    public static BackendProvider using(RedissonClient client) {
        Objects.requireNonNull(client);
        return (settings, classLoader, clock, clientTimeout) -> new RedissonBackend(client, false, clock, clientTimeout);
    }

    /**
     * The type of the client {@link #using} takes, for an adapter that looks up an application's own client (a CDI
     * bean) without naming Redisson itself.
     *
     * @return Redisson's client interface
     */
    public static Class<RedissonClient> clientType() {
        return RedissonClient.class;
    }
}
