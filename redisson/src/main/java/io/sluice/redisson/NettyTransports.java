package io.sluice.redisson;

import io.netty.channel.epoll.Epoll;
import io.sluice.ConfigException;
import io.sluice.rule.RedisTransport;
import org.redisson.config.TransportMode;

/**
 * Chooses the Netty transport of the client Sluice builds for {@code sluice.redis.address}: Linux's native epoll where
 * it is asked for, or where {@code auto} finds its library on the classpath and loading; else Java's NIO. The native
 * library is the application's to add ({@code io.netty:netty-transport-native-epoll}, classifier
 * {@code linux-x86_64} or {@code linux-aarch_64}, at Redisson's Netty version): Sluice does not bring it.
 */
final class NettyTransports {
    private NettyTransports() {
    }

    static TransportMode choose(RedisTransport wanted) {
        return choose(wanted, epollLoads());
    }

    static TransportMode choose(RedisTransport wanted, boolean epollLoads) {
        return switch (wanted) {
            case NIO -> TransportMode.NIO;
            case AUTO -> epollLoads ? TransportMode.EPOLL : TransportMode.NIO;
            case EPOLL -> {
                if (!epollLoads) {
                    throw new ConfigException("sluice.redis.transport = \"epoll\": expected auto or nio on this machine, where "
                            + "Netty's native epoll transport does not load (" + whyNot() + ")");
                }
                yield TransportMode.EPOLL;
            }
        };
    }

    /** Whether Netty's epoll classes are on the classpath and their native library loads. */
    static boolean epollLoads() {
        try {
            return Epoll.isAvailable();
        } catch (LinkageError e) {
            // netty-transport-classes-epoll is optional: without it, the class itself is missing.
            return false;
        }
    }

    private static String whyNot() {
        try {
            Throwable cause = Epoll.unavailabilityCause();
            return cause == null ? "unknown cause" : cause.getClass().getSimpleName() + ": add "
                    + "io.netty:netty-transport-native-epoll with this platform's classifier";
        } catch (LinkageError e) {
            return "io.netty:netty-transport-native-epoll is not on the classpath";
        }
    }
}
