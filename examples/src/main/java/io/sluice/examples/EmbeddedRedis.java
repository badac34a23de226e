package io.sluice.examples;

import redis.embedded.RedisServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** The embedded Redis the examples start when {@code REDIS_URL} is not set: loopback only, no persistence. */
public final class EmbeddedRedis {
    private EmbeddedRedis() {
    }

    /** Starts a Redis on a free loopback port; its address is {@link #address(RedisServer)}. */
    public static RedisServer start() throws IOException {
        RedisServer redis = RedisServer.newRedisServer()
                .port(freePort())
                .setting("bind 127.0.0.1")
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        redis.start();
        return redis;
    }

    /** The address of a started embedded Redis, such as {@code redis://127.0.0.1:40435}. */
    public static String address(RedisServer redis) {
        return "redis://127.0.0.1:" + redis.ports().get(0);
    }

    /** Stops it, reporting (not throwing) a failure; null is ignored. */
    public static void stopQuietly(RedisServer redis) {
        if (redis == null) return;
        try {
            redis.stop();
        } catch (IOException e) {
            System.err.println("Could not stop the embedded Redis: " + e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
