package io.sluice.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} process for tests that need to stop, kill, pause, restart or reconfigure
 * Redis, or run several of them (cluster, Sentinel). Runs the binary of a {@link RedisVersion}: by default
 * the Linux binary that the embedded-redis artifact ships (Redis 6.2, with cluster, Sentinel, ACL and TLS
 * support). Each process has its own working directory, configuration file and log; every process still
 * running is killed when the test JVM exits.
 *
 * <p>Admin commands go over a plain connection ({@link #command}) so tests need no {@code redis-cli}.
 */
public final class RedisProcess implements AutoCloseable {
    private static final String EMBEDDED_BINARY = "redis-server-6.2.6-v5-linux-amd64";
    private static final Set<RedisProcess> RUNNING = ConcurrentHashMap.newKeySet();
    private static Path binary;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(RedisProcess::kill)));
    }

    private final RedisVersion version;
    private final int port;
    private final boolean sentinel;
    private final List<String> config;
    private final Path dir;
    private volatile Process process;

    private RedisProcess(RedisVersion version, int port, boolean sentinel, List<String> config, Path dir) {
        this.version = version;
        this.port = port;
        this.sentinel = sentinel;
        this.config = List.copyOf(config);
        this.dir = dir;
    }

    /** Starts a Redis 6.2 server on a free port with no persistence and the given extra configuration lines. */
    public static RedisProcess start(String... configLines) {
        return start(RedisVersion.REDIS_6_2, configLines);
    }

    /** Starts a server of {@code version} on a free port with no persistence and the given extra configuration lines. */
    public static RedisProcess start(RedisVersion version, String... configLines) {
        return start(version, TestRedis.freePort(), false, List.of(configLines));
    }

    /** Starts a Sentinel of {@code version} on a free port with the given lines (such as {@code sentinel monitor ...}). */
    public static RedisProcess startSentinel(RedisVersion version, String... configLines) {
        return start(version, TestRedis.freePort(), true, List.of(configLines));
    }

    /** Starts a Redis 6.2 server or Sentinel on the given port; waits until it answers PING. */
    public static RedisProcess start(int port, boolean sentinel, List<String> configLines) {
        return start(RedisVersion.REDIS_6_2, port, sentinel, configLines);
    }

    /** Starts a server or Sentinel of {@code version} on the given port; waits until it answers PING. */
    public static RedisProcess start(RedisVersion version, int port, boolean sentinel, List<String> configLines) {
        version.binary(); // skips or fails before anything is started
        try {
            Path dir = Files.createTempDirectory("sluice-redis-" + port + "-");
            RedisProcess redis = new RedisProcess(version, port, sentinel, configLines, dir);
            redis.launch();
            return redis;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return port;
    }

    public RedisVersion version() {
        return version;
    }

    /** {@code redis://127.0.0.1:port}, the address Sluice and Redisson take. */
    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    public Path dir() {
        return dir;
    }

    public boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Sends one command on a new connection and returns the reply (see {@link Resp#read}). */
    public Object command(String... args) {
        try (Resp resp = Resp.connect(port, Duration.ofSeconds(10))) {
            return resp.call(args);
        }
    }

    /** Sends {@code SHUTDOWN NOSAVE}, as {@code redis-cli SHUTDOWN} would, and waits for the process to end. */
    public void shutdown() {
        try (Resp resp = Resp.connect(port, Duration.ofSeconds(5))) {
            resp.send("SHUTDOWN", "NOSAVE");
        } catch (RuntimeException ignored) {
            // the server closes the connection without a reply
        }
        awaitExit(Duration.ofSeconds(10));
    }

    /** SIGKILL, as a crash would: no clean-up on the server side. */
    public void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RUNNING.remove(this);
    }

    /** SIGSTOP: the process stops where it is, its sockets open, answering nothing until {@link #thaw}. */
    public void freeze() {
        signal("-STOP");
    }

    /** SIGCONT after {@link #freeze}. */
    public void thaw() {
        signal("-CONT");
    }

    private void signal(String which) {
        try {
            Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) throw new IllegalStateException("kill " + which + " failed for port " + port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts the process again on the same port with the same configuration (data survives only if persisted). */
    public void restart() {
        kill();
        launch();
    }

    /** The server's log so far, for failure messages. */
    public String log() {
        try {
            Path log = dir.resolve("redis.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** Kills the process and deletes its directory. */
    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temp directory, best effort
        }
    }

    private void launch() {
        try {
            List<String> lines = new ArrayList<>();
            lines.add("port " + port);
            lines.add("bind 127.0.0.1");
            lines.add("dir " + dir);
            if (!sentinel) {
                lines.add("save \"\"");
                lines.add("appendonly no");
                lines.addAll(version.defaults());
            }
            lines.addAll(config);
            Path conf = dir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
            // Sentinel rewrites its own file; write it only the first time.
            if (!sentinel || !Files.exists(conf)) Files.write(conf, lines, StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of(version.binary().toString(), conf.toString()));
            if (sentinel) command.add("--sentinel");
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                    .start();
            RUNNING.add(this);
            awaitPing(Duration.ofSeconds(15));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitPing(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IllegalStateException("redis-server on port " + port + " exited:\n" + log());
            try (Resp resp = Resp.connect(port, Duration.ofSeconds(1))) {
                if ("PONG".equals(resp.call("PING"))) return;
            } catch (Resp.RedisError e) {
                // A server that requires a password (requirepass, ACL) is up when it asks for one.
                if (e.getMessage().startsWith("NOAUTH")) return;
                last = e;
            } catch (RuntimeException e) {
                last = e;
            }
            pause(20);
        }
        kill();
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within " + timeout
                + " (" + last + "):\n" + log());
    }

    private void awaitExit(Duration timeout) {
        Process p = process;
        try {
            if (p != null && !p.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        RUNNING.remove(this);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // polling interval while waiting for a process, bounded by a deadline
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The Redis 6.2 binary the embedded-redis artifact ships, extracted once. */
    static synchronized Path embeddedBinary() {
        if (binary != null) return binary;
        try (InputStream in = RedisProcess.class.getResourceAsStream("/" + EMBEDDED_BINARY)) {
            if (in == null) throw new IllegalStateException(EMBEDDED_BINARY + " not on the test classpath (embedded-redis)");
            Path file = Files.createTempFile("sluice-redis-server-", "");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
            file.toFile().deleteOnExit();
            return binary = file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
