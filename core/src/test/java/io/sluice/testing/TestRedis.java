package io.sluice.testing;

import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.EnumMap;
import java.util.Map;

/**
 * The Redis the integration tests talk to: the one named by the environment variable
 * {@code SLUICE_TEST_REDIS} (such as {@code redis://127.0.0.1:6379}), or else a real redis-server from
 * the embedded-redis artifact, started once per test JVM on a free loopback port and stopped at exit.
 */
public final class TestRedis {
    private static String address;

    private TestRedis() {
    }

    private static final Map<RedisVersion, RedisProcess> OTHERS = new EnumMap<>(RedisVersion.class);

    /**
     * A Redis of {@code version} shared by this JVM: {@link #address()} for 6.2 (so {@code SLUICE_TEST_REDIS}
     * still applies), a {@link RedisProcess} started on first use for the others.
     */
    public static synchronized String address(RedisVersion version) {
        if (version == RedisVersion.REDIS_6_2) return address();
        return OTHERS.computeIfAbsent(version, RedisVersion::start).address();
    }

    public static synchronized String address() {
        if (address != null) return address;
        String external = System.getenv("SLUICE_TEST_REDIS");
        if (external != null && !external.isBlank()) {
            address = external;
            return address;
        }
        try {
            int port = freePort();
            RedisServer server = RedisServer.newRedisServer()
                    .port(port)
                    .bind("127.0.0.1")
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }));
            address = "redis://127.0.0.1:" + port;
            return address;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded Redis", e);
        }
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
