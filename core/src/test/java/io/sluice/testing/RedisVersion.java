package io.sluice.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis versions the Redis suites run on: the 6.2 binary that the embedded-redis artifact ships (or another
 * 6.x named by {@code SLUICE_REDIS_SERVER}), and a
 * Redis 7 installed on the machine ({@code /usr/bin/redis-server}, Debian's {@code redis-server} package, or
 * the binary named by {@code SLUICE_REDIS7_SERVER}; a newer major is accepted too). Suites take one as the parameter of a
 * {@code @ParameterizedClass} and start their processes through it.
 *
 * <p>A missing Redis 7 skips its variants on a developer machine, with a message saying how to get it. Where
 * {@code CI=true} or {@code REQUIRE_REDIS7=true} it fails them instead: CI must never pass by skipping.
 */
public enum RedisVersion {
    REDIS_6_2(6, 6) {
        @Override
        Path locate() {
            String named = System.getenv("SLUICE_REDIS_SERVER");
            return named != null && !named.isBlank() ? Path.of(named) : RedisProcess.embeddedBinary();
        }
    },
    REDIS_7(7, Integer.MAX_VALUE) {
        @Override
        Path locate() {
            String named = System.getenv("SLUICE_REDIS7_SERVER");
            Path binary = Path.of(named != null && !named.isBlank() ? named : "/usr/bin/redis-server");
            if (!Files.isExecutable(binary)) unavailable(binary + " is missing");
            return binary;
        }

        @Override
        List<String> defaults() {
            // Redis 7 refuses DEBUG (the failure suites' DEBUG SLEEP) unless enabled; 6.2 has no such setting.
            return List.of("enable-debug-command yes");
        }
    };

    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");
    private final int major;
    /** Newest major accepted: the system's Redis may be newer than 7 (Debian after bookworm). */
    private final int newestMajor;
    private volatile Path binary;
    private volatile String version;
    private volatile boolean skipAnnounced;

    RedisVersion(int major, int newestMajor) {
        this.major = major;
        this.newestMajor = newestMajor;
    }

    abstract Path locate();

    /** Configuration lines every server of this version gets before the test's own. */
    List<String> defaults() {
        return List.of();
    }

    /** The redis-server binary, checked to be of this major version; skips or fails when there is none. */
    public synchronized Path binary() {
        if (binary == null) {
            Path candidate = locate();
            String reported = reportedVersion(candidate);
            Matcher m = VERSION.matcher(reported);
            if (!m.find()) unavailable(candidate + " --version said \"" + reported.strip() + "\"");
            int found = Integer.parseInt(m.group(1));
            if (found < major || found > newestMajor) {
                unavailable(candidate + " is Redis " + m.group(1) + "." + m.group(2) + "." + m.group(3) + ", not "
                        + major + (newestMajor > major ? " or newer" : ".x"));
            }
            version = m.group(1) + "." + m.group(2) + "." + m.group(3);
            binary = candidate;
        }
        return binary;
    }

    /** The exact version, such as {@code 7.0.15}, for reports. */
    public String version() {
        binary();
        return version;
    }

    /** Starts a server of this version on a free port (see {@link RedisProcess#start(RedisVersion, String...)}). */
    public RedisProcess start(String... configLines) {
        return RedisProcess.start(this, configLines);
    }

    /** Starts a server of this version on the given port. */
    public RedisProcess start(int port, List<String> configLines) {
        return RedisProcess.start(this, port, false, configLines);
    }

    @Override
    public String toString() {
        return "Redis " + major + (version != null ? " (" + version + ")" : "");
    }

    void unavailable(String why) {
        String message = "Redis " + major + " is not available: " + why + ". Install it (Debian: apt-get install "
                + "redis-server) or name a binary with SLUICE_REDIS7_SERVER.";
        if (required()) throw new IllegalStateException(message + " CI requires it (CI=true or REQUIRE_REDIS7=true).");
        String skipping = message + " Skipping the Redis " + major + " variants.";
        // Surefire reports a skipped class invocation (an abort before its tests) as nothing at all: say it once here.
        if (!skipAnnounced) {
            skipAnnounced = true;
            System.err.println("[SKIPPED] " + skipping);
        }
        Assumptions.abort(skipping);
    }

    private static boolean required() {
        return "true".equalsIgnoreCase(System.getenv("CI")) || "true".equalsIgnoreCase(System.getenv("REQUIRE_REDIS7"));
    }

    private static String reportedVersion(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            try (InputStream in = p.getInputStream()) {
                String out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor(10, TimeUnit.SECONDS);
                return out;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
