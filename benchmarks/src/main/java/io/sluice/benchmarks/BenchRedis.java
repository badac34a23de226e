package io.sluice.benchmarks;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * The Redis every benchmark of a JVM talks to: the one named by the system property {@code sluice.bench.redis}
 * or the environment variable {@code SLUICE_BENCH_REDIS} (such as {@code redis://127.0.0.1:6379}), or else a
 * redis-server from the embedded-redis artifact, started once on a free loopback port and stopped at exit.
 */
public final class BenchRedis {
    private static String address;

    private BenchRedis() {
    }

    public static synchronized String address() {
        if (address != null) return address;
        String given = System.getProperty("sluice.bench.redis", System.getenv("SLUICE_BENCH_REDIS"));
        if (given != null && !given.isBlank()) return address = given;
        try {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            RedisServer server = RedisServer.newRedisServer().port(port)
                    .setting("bind 127.0.0.1").setting("save \"\"").setting("appendonly no").build();
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }));
            return address = "redis://127.0.0.1:" + port;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded Redis", e);
        }
    }

    private static RedissonClient client;

    /**
     * The client of this JVM, configured as an application would: every system under test uses it (JMH forks
     * a JVM per benchmark, so each measures on its own). {@link #release()} after each benchmark.
     */
    public static synchronized RedissonClient client() {
        if (client != null) return client;
        Config config = new Config();
        config.useSingleServer().setAddress(address())
                .setConnectionPoolSize(64).setConnectionMinimumIdleSize(16)
                .setTimeout(10_000).setRetryAttempts(0);
        return client = Redisson.create(config);
    }

    /**
     * Shuts the client down, so a JMH fork can exit; kept when the system property {@code sluice.bench.keep-client}
     * is true (benchmarks run in one JVM, as the smoke test does, share it).
     */
    public static synchronized void release() {
        if (client == null || Boolean.getBoolean("sluice.bench.keep-client")) return;
        client.shutdown();
        client = null;
    }
}
