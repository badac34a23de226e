package io.sluice.rule;

import io.sluice.key.ClientAddressHeader;
import io.sluice.key.TrustedProxies;

import java.time.Duration;
import java.util.Optional;

/**
 * The global part of the rules file ({@code sluice.*} outside {@code sluice.rules.}). Immutable and thread-safe.
 *
 * @param redisAddress     {@code sluice.redis.address}: a single Redis, such as {@code redis://127.0.0.1:6379}
 * @param redisConfig      {@code sluice.redis.config}: location of Redisson's own YAML; wins over the address
 * @param keyPrefix        {@code sluice.key-prefix}: namespace of every Redis key
 * @param onBackendFailure {@code sluice.on-backend-failure}: the default of every rule
 * @param trustedProxies   {@code sluice.trusted-proxies}: peers whose forwarding header is believed
 * @param clientAddressHeader {@code sluice.client-address-header}: the one header those peers set for the client
 * @param headers          {@code sluice.headers}: which rate-limit headers are written
 * @param backendTimeout   {@code sluice.backend-timeout}: the deadline of one decision (extension)
 * @param maxClockSkew     {@code sluice.max-clock-skew}: tolerated difference between this server's clock and
 *                         Redis's (extension); leases must be at least twice as long
 * @param awaitBackend     {@code sluice.await-backend}: how long start-up waits for the first connection to
 *                         the backend before serving anyway ({@value #DEFAULT_AWAIT_BACKEND_SECONDS}s by default,
 *                         {@code 0s}: not at all)
 * @param reload           {@code sluice.reload}: how often a {@code file:} rules file is checked for changes
 *                         ({@code 0s}: never); fixed at start: a reloaded file's value needs a restart
 * @param allowNoRules     {@code sluice.allow-no-rules}: whether a reload may put rules in effect that have no rule
 *                         at all, turning every limit off (default false: such a file is refused, as one read while
 *                         it is rewritten would be)
 * @param localShare       {@code sluice.local-share}: the number of servers that share a limit while the backend cannot
 *                         answer ({@code on-backend-failure=local}), fixed by hand; {@link #LOCAL_SHARE_FROM_BACKEND}
 *                         (the default): the servers alive before it failed, as they announce themselves in it
 * @param redisTransport   {@code sluice.redis.transport}: the network transport of the client built for
 *                         {@code sluice.redis.address} (extension; default {@link RedisTransport#AUTO})
 */
public record Settings(
        Optional<String> redisAddress,
        Optional<String> redisConfig,
        String keyPrefix,
        FailurePolicy onBackendFailure,
        TrustedProxies trustedProxies,
        ClientAddressHeader clientAddressHeader,
        HeaderStyle headers,
        Duration backendTimeout,
        Duration maxClockSkew,
        Duration awaitBackend,
        Duration reload,
        boolean allowNoRules,
        int localShare,
        RedisTransport redisTransport) {

    public static final String DEFAULT_REDIS_ADDRESS = "redis://127.0.0.1:6379";
    public static final Duration DEFAULT_BACKEND_TIMEOUT = Duration.ofMillis(100);
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofMillis(500);
    /**
     * Long enough for a remote Redis behind TLS and AUTH to answer its first command, so that a normal start decides
     * its first request in Redis; short enough that a dead Redis delays a deployment by seconds, not for good.
     */
    public static final long DEFAULT_AWAIT_BACKEND_SECONDS = 10;
    public static final Duration DEFAULT_AWAIT_BACKEND = Duration.ofSeconds(DEFAULT_AWAIT_BACKEND_SECONDS);
    public static final Duration DEFAULT_RELOAD = Duration.ZERO;
    /** {@link #localShare}: not fixed, counted from the servers that announce themselves in the backend. */
    public static final int LOCAL_SHARE_FROM_BACKEND = 0;
    /** The range of {@code sluice.local-share}. */
    public static final int MIN_LOCAL_SHARE = 1;
    public static final int MAX_LOCAL_SHARE = 10_000;

    /** Settings with the default transport, as before {@code sluice.redis.transport} existed. */
    public Settings(Optional<String> redisAddress, Optional<String> redisConfig, String keyPrefix,
                    FailurePolicy onBackendFailure, TrustedProxies trustedProxies, ClientAddressHeader clientAddressHeader,
                    HeaderStyle headers, Duration backendTimeout, Duration maxClockSkew, Duration awaitBackend,
                    Duration reload, boolean allowNoRules, int localShare) {
        this(redisAddress, redisConfig, keyPrefix, onBackendFailure, trustedProxies, clientAddressHeader, headers,
                backendTimeout, maxClockSkew, awaitBackend, reload, allowNoRules, localShare, RedisTransport.AUTO);
    }

    /** Settings whose local share is counted from the backend, as before {@code sluice.local-share} existed. */
    public Settings(Optional<String> redisAddress, Optional<String> redisConfig, String keyPrefix,
                    FailurePolicy onBackendFailure, TrustedProxies trustedProxies, ClientAddressHeader clientAddressHeader,
                    HeaderStyle headers, Duration backendTimeout, Duration maxClockSkew, Duration awaitBackend,
                    Duration reload, boolean allowNoRules) {
        this(redisAddress, redisConfig, keyPrefix, onBackendFailure, trustedProxies, clientAddressHeader, headers,
                backendTimeout, maxClockSkew, awaitBackend, reload, allowNoRules, LOCAL_SHARE_FROM_BACKEND);
    }
}
