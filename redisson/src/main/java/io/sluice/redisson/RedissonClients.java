package io.sluice.redisson;

import io.sluice.ConfigException;
import io.sluice.engine.Deadlines;
import io.sluice.rule.RuleParser;
import io.sluice.rule.Settings;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Builds the Redisson client a rules file describes. */
public final class RedissonClients {
    private RedissonClients() {
    }

    /**
     * A client for {@code sluice.redis.config} (Redisson's own YAML, passed through untouched) or else
     * {@code sluice.redis.address}. It connects lazily, so a Redis that is down never blocks deployment,
     * and a single-address client gets short time-outs and no retries: a limiter sits on every request, and the
     * transport {@code sluice.redis.transport} names ({@link NettyTransports}).
     */
    public static RedissonClient create(Settings settings, ClassLoader loader) {
        Config config;
        if (settings.redisConfig().isPresent()) {
            config = yaml(settings.redisConfig().get(), loader);
        } else {
            config = new Config();
            // Past Sluice's own deadline and its patience with a busy server (Deadlines.hardBound): a client timeout
            // at the deadline fails calls whose answer a starved I/O thread has not read yet.
            int timeout = (int) Math.max(1, Deadlines.clientTimeout(settings.backendTimeout()).toMillis());
            config.useSingleServer()
                    .setAddress(settings.redisAddress().orElse(Settings.DEFAULT_REDIS_ADDRESS))
                    .setTimeout(timeout)
                    .setRetryAttempts(0)
                    .setConnectTimeout(Math.max(timeout, 1000))
                    .setConnectionMinimumIdleSize(4)
                    .setPingConnectionInterval(5000);
            // No UDP sockets on the wildcard address (Netty's DNS client): see JdkAddressResolverFactory.
            config.setAddressResolverGroupFactory(new JdkAddressResolverFactory());
            config.setTransportMode(NettyTransports.choose(settings.redisTransport()));
            // Sluice stores no Redisson live objects: without this, every script argument is first looked up as one.
            config.setReferenceEnabled(false);
        }
        config.setLazyInitialization(true);
        try {
            return Redisson.create(config);
        } catch (RuntimeException e) {
            // Such as a malformed address: its message may echo the address with its password.
            String property = settings.redisConfig().isPresent() ? "sluice.redis.config" : "sluice.redis.address";
            String value = settings.redisConfig().orElseGet(() -> RuleParser.redactUserInfo(
                    settings.redisAddress().orElse(Settings.DEFAULT_REDIS_ADDRESS)));
            throw new ConfigException(property + " = \"" + value + "\": Redisson could not create a client from it ("
                    + causes(e) + ")");
        }
    }

    private static Config yaml(String location, ClassLoader loader) {
        try {
            if (location.startsWith("classpath:")) {
                String path = location.substring("classpath:".length()).replaceFirst("^/", "");
                ClassLoader cl = loader != null ? loader : RedissonClients.class.getClassLoader();
                try (InputStream in = cl.getResourceAsStream(path)) {
                    if (in == null) throw new IOException("not found");
                    return Config.fromYAML(in);
                }
            }
            Path path = Path.of(location.startsWith("file:") ? location.substring("file:".length()) : location);
            try (InputStream in = Files.newInputStream(path)) {
                return Config.fromYAML(in);
            }
        } catch (IOException | RuntimeException e) {
            // The YAML may hold passwords, and parser messages quote it: name the location, the kind of
            // failure and where it is, never the content.
            throw new ConfigException("sluice.redis.config = \"" + location
                    + "\": expected a readable Redisson YAML file (" + causes(e) + position(e) + ")");
        }
    }

    /** The class names of an exception and its causes, without their messages. */
    private static String causes(Throwable e) {
        StringBuilder names = new StringBuilder(e.getClass().getSimpleName());
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            names.append(" < ").append(c.getClass().getSimpleName());
        }
        return names.toString();
    }

    /** The line and column of the innermost YAML problem, if the parser marked one. */
    private static String position(Throwable e) {
        Mark mark = null;
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof MarkedYAMLException m && m.getProblemMark() != null) mark = m.getProblemMark();
        }
        return mark == null ? "" : " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
    }
}
