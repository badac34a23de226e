package io.sluice.spi;

import io.sluice.rule.Settings;

import java.time.Clock;
import java.time.Duration;

/**
 * Makes the backend of an engine from its rules file's settings. An engine built without a backend of its own
 * finds the one provider on the class path through {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/io.sluice.spi.BackendProvider} entry, as {@code sluice-redisson} registers); an
 * application can also give one to {@code Sluice.Builder.backend(BackendProvider)}.
 *
 * <p>The engine waits at start-up for the first connection of a backend made this way
 * ({@code sluice.await-backend}), and closes it when it closes.
 *
 * <p>Implementations are thread-safe; one registered for {@code ServiceLoader} has a public no-argument
 * constructor.
 */
@FunctionalInterface
public interface BackendProvider {

    /**
     * A backend for an engine; it connects in the background rather than block this call.
     *
     * @param settings      the global settings of the rules file (the Redis address or configuration, say)
     * @param classLoader   where {@code classpath:} locations are looked up; null for the provider's own
     * @param clock         the wall clock of this server, the time base of whatever the store takes from the caller
     * @param clientTimeout how long the store's own client may wait for an answer: the engine's deadline decides
     *                      when a call is late, this only backs it up; a store may refuse to act on a call that
     *                      reaches it later than this less 100 ms (never before the engine's hard bound), its caller
     *                      having given up on it
     * @return the backend; the engine closes it
     */
    LimiterBackend create(Settings settings, ClassLoader classLoader, Clock clock, Duration clientTimeout);
}
