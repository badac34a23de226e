package io.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Redisson YAML written to a temporary file, for {@code sluice.redis.config=file:...}. */
public final class RedisYaml {
    private RedisYaml() {
    }

    /** Writes the YAML to a new temporary file (deleted when the JVM exits) and returns its {@code file:} location. */
    public static String file(String yaml) {
        try {
            Path file = Files.createTempFile("sluice-redisson-", ".yaml");
            file.toFile().deleteOnExit();
            Files.writeString(file, yaml);
            return "file:" + file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
