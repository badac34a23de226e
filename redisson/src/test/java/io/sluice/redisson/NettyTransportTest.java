package io.sluice.redisson;

import io.sluice.Admission;
import io.sluice.ConfigException;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.RedisTransport;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.rule.Settings;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.config.TransportMode;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code sluice.redis.transport} on the client Sluice builds for an address: {@code auto} (the default) takes epoll
 * when its native library loads (this module's tests have it, as an application that adds it does), {@code nio} keeps
 * Java's NIO, {@code epoll} insists; each client decides on a real Redis.
 */
class NettyTransportTest {
    @Test
    void theTestClasspathHasTheNativeLibraryAnApplicationAdds() {
        assertThat(NettyTransports.epollLoads()).isTrue();
    }

    @Test
    void unsetItIsAutoAndTakesTheLibraryThere() {
        Settings settings = RuleParser.parse(Map.of("sluice.redis.address", TestRedis.address())).settings();
        RedissonClient client = RedissonClients.create(settings, NettyTransportTest.class.getClassLoader());
        try {
            assertThat(client.getConfig().getTransportMode()).isEqualTo(TransportMode.EPOLL);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void eachValueGivesItsTransportAndTheClientDecidesOnRedis() {
        assertDecides("auto", TransportMode.EPOLL);
        assertDecides("nio", TransportMode.NIO);
        assertDecides("epoll", TransportMode.EPOLL);
    }

    @Test
    void withoutTheNativeLibraryAutoIsNioAndEpollFailsStartUpNamingTheProperty() {
        assertThat(NettyTransports.choose(RedisTransport.AUTO, false)).isEqualTo(TransportMode.NIO);
        assertThat(NettyTransports.choose(RedisTransport.NIO, false)).isEqualTo(TransportMode.NIO);
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> NettyTransports.choose(RedisTransport.EPOLL, false));
        assertThat(e.problems()).singleElement().asString().startsWith("sluice.redis.transport = \"epoll\": expected auto or nio "
                + "on this machine, where Netty's native epoll transport does not load (");
    }

    /**
     * The application without the native library (nor epoll's classes, which come with it): Sluice's classes loaded
     * apart from this test's, from its class path less every epoll jar. {@code auto} makes a NIO client that answers;
     * {@code epoll} fails naming the property, the value and what to add.
     */
    @Test
    void anApplicationWithoutTheLibraryGetsNioOrAClearError() throws Exception {
        List<URL> jars = new ArrayList<>();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.contains("epoll")) jars.add(Path.of(entry).toUri().toURL());
        }
        try (URLClassLoader apart = new URLClassLoader(jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> apart.loadClass("io.netty.channel.epoll.Epoll")).isInstanceOf(ClassNotFoundException.class);
            Method create = apart.loadClass(NettyTransportTest.class.getName()).getDeclaredMethod("transportOf", String.class, String.class);
            create.setAccessible(true);
            assertThat(create.invoke(null, "auto", TestRedis.address())).isEqualTo("NIO");
            assertThat(create.invoke(null, "nio", TestRedis.address())).isEqualTo("NIO");
            assertThat(create.invoke(null, "epoll", TestRedis.address())).isEqualTo("sluice.redis.transport = \"epoll\": expected auto or nio on this "
                    + "machine, where Netty's native epoll transport does not load (io.netty:netty-transport-native-epoll is not "
                    + "on the classpath)");
        }
    }

    /** Run in the loader apart: the transport of a client for the test Redis, which must answer, or the problem. */
    private static String transportOf(String transport, String address) {
        Settings settings = RuleParser.parse(Map.of("sluice.redis.address", address,
                "sluice.redis.transport", transport, "sluice.backend-timeout", "5s")).settings();
        RedissonClient client;
        try {
            client = RedissonClients.create(settings, NettyTransportTest.class.getClassLoader());
        } catch (ConfigException e) {
            return String.join("; ", e.problems());
        }
        try {
            var bucket = client.<String>getBucket("sluice-transport-apart-" + transport);
            bucket.set("connected");
            if (!"connected".equals(bucket.getAndDelete())) throw new AssertionError("no answer over " + transport);
            return client.getConfig().getTransportMode().name();
        } finally {
            client.shutdown();
        }
    }

    @Test
    void anEngineFromPropertiesDecidesExactlyOverEpoll() {
        String prefix = "transport-" + UUID.randomUUID().toString().substring(0, 8);
        try (Sluice sluice = Sluice.builder().properties(Map.of(
                "sluice.redis.address", TestRedis.address(),
                "sluice.redis.transport", "epoll",
                "sluice.backend-timeout", "5s",
                "sluice.key-prefix", prefix,
                "sluice.rules.quiet.rate", "3/1h",
                "sluice.rules.quiet.key", "user")).build()) {
            List<Rule> rules = List.of(sluice.rules().get("quiet").orElseThrow());
            int admitted = 0;
            for (int i = 0; i < 5; i++) {
                Admission a = sluice.admit(rules, KeySource.fixed("alice")).toCompletableFuture().join();
                if (a.allowed()) admitted++;
            }
            assertThat(admitted).isEqualTo(3);
            assertThat(sluice.stats().failedOpen() + sluice.stats().failedClosed()).isZero();
        }
    }

    private static void assertDecides(String transport, TransportMode expected) {
        Settings settings = RuleParser.parse(Map.of("sluice.redis.address", TestRedis.address(),
                "sluice.redis.transport", transport, "sluice.backend-timeout", "5s")).settings();
        RedissonClient client = RedissonClients.create(settings, NettyTransportTest.class.getClassLoader());
        try {
            assertThat(client.getConfig().getTransportMode()).as(transport).isEqualTo(expected);
            var bucket = client.<String>getBucket("sluice-transport-test-" + transport);
            bucket.set("connected");
            assertThat(bucket.getAndDelete()).isEqualTo("connected");
        } finally {
            client.shutdown();
        }
    }
}
