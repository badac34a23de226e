package io.sluice.testing;

import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Redis the integration tests talk to: the one named by the environment variable
 * {@code SLUICE_TEST_REDIS} (such as {@code redis://127.0.0.1:6379}), or else a real redis-server from
 * the embedded-redis artifact, started once per test JVM on a free loopback port and stopped at exit.
 */
public final class TestRedis {
    private static String address;

    /** Redis listens for its cluster bus on the client port plus this (fixed in Redis 6.2). */
    private static final int CLUSTER_BUS_OFFSET = 10_000;
    /** Test ports and their bus ports both stay below 32768, where Linux's ephemeral range starts. */
    private static final int FIRST_PORT = 20_000;
    private static final int PORTS = 32_768 - CLUSTER_BUS_OFFSET - FIRST_PORT;
    /** Starts at a random place so that two test JVMs at once rarely try the same ports. */
    private static final AtomicInteger nextPort = new AtomicInteger(ThreadLocalRandom.current().nextInt(PORTS));

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

    /**
     * A loopback port that is free now, and whose Redis cluster bus port ({@code port + 10000}) is free too.
     *
     * <p>Ports come from below the kernel's ephemeral range (Linux 32768-60999, macOS and Windows from 49152):
     * a port the kernel hands out with {@code bind(0)} is one that any outgoing connection may take next, and
     * the bus port of such a port lies inside that range too. Once a cluster node on 37005 lost its bus port
     * 47005 to a client connection that way. Outside the range only a server that asks for the port by number
     * can take it, and within this JVM each port is handed out once.
     */
    public static int freePort() {
        for (int attempt = 0; attempt < PORTS; attempt++) {
            int port = FIRST_PORT + Math.floorMod(nextPort.getAndIncrement(), PORTS);
            if (bindable(port) && bindable(port + CLUSTER_BUS_OFFSET)) return port;
        }
        throw new IllegalStateException("no free loopback port in " + FIRST_PORT + "-" + (FIRST_PORT + PORTS - 1));
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
