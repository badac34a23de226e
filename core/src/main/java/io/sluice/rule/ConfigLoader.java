package io.sluice.rule;

import io.sluice.ConfigException;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;

/**
 * Finds and reads the rules file. Location, first found wins: an explicit location (the filter's
 * {@code config} init-param), the system property {@code sluice.config}, the environment variable
 * {@code SLUICE_CONFIG}, then {@code classpath:sluice.properties}. A location is {@code classpath:PATH},
 * {@code file:PATH} or a plain file path. Overrides (such as {@code sluice.*} init-params) win over the file.
 *
 * <p>Values are returned as written: {@code ${NAME}} placeholders are resolved by {@link RuleParser}, which
 * keeps the written form for its messages.
 */
public final class ConfigLoader {
    public static final String SYSTEM_PROPERTY = "sluice.config";
    public static final String ENVIRONMENT_VARIABLE = "SLUICE_CONFIG";
    public static final String DEFAULT_LOCATION = "classpath:sluice.properties";
    static final String CLASSPATH = "classpath:";
    private static final String FILE = "file:";

    private ConfigLoader() {
    }

    /** Loads the rules file and applies the overrides; the properties are not parsed yet. */
    public static Map<String, String> load(String explicitLocation, Map<String, String> overrides, ClassLoader loader) {
        return load(explicitLocation, overrides, loader, System::getProperty, System::getenv);
    }

    static Map<String, String> load(String explicitLocation, Map<String, String> overrides, ClassLoader loader,
                                    UnaryOperator<String> systemProperties, UnaryOperator<String> environment) {
        return source(explicitLocation, overrides, loader, systemProperties, environment).load();
    }

    /**
     * Where the rules file is, found as {@link #load} finds it, for an engine that reads it again on reload: the
     * location is resolved now, so a reload reads the same file whatever the system property says by then.
     */
    public static RulesSource source(String explicitLocation, Map<String, String> overrides, ClassLoader loader) {
        return source(explicitLocation, overrides, loader, System::getProperty, System::getenv);
    }

    static RulesSource source(String explicitLocation, Map<String, String> overrides, ClassLoader loader,
                              UnaryOperator<String> systemProperties, UnaryOperator<String> environment) {
        String location = firstNonBlank(explicitLocation, systemProperties.apply(SYSTEM_PROPERTY),
                environment.apply(ENVIRONMENT_VARIABLE));
        return RulesSource.file(location == null ? null : location.trim(), overrides, loader);
    }

    /** Reads a location resolved by {@link #source} (null: the default, which may be missing). */
    static Map<String, String> loadResolved(String location, Map<String, String> overrides, ClassLoader loader) {
        Map<String, String> out = new LinkedHashMap<>();
        if (location != null) {
            out.putAll(read(location, loader, true));
        } else {
            Map<String, String> fallback = read(DEFAULT_LOCATION, loader, false);
            if (fallback == null && overrides.isEmpty()) {
                throw new ConfigException("rules file = (none found): expected " + DEFAULT_LOCATION
                        + ", or a location in the system property " + SYSTEM_PROPERTY + ", the environment variable "
                        + ENVIRONMENT_VARIABLE + " or the filter init-param config");
            }
            if (fallback != null) out.putAll(fallback);
        }
        out.putAll(overrides);
        return out;
    }

    /** Reads one location; null when it does not exist and is not required. */
    static Map<String, String> read(String location, ClassLoader loader, boolean required) {
        Properties p = new Properties();
        try {
            if (location.startsWith(CLASSPATH)) {
                String path = location.substring(CLASSPATH.length());
                if (path.startsWith("/")) path = path.substring(1);
                ClassLoader cl = loader != null ? loader : ConfigLoader.class.getClassLoader();
                try (InputStream in = cl.getResourceAsStream(path)) {
                    if (in == null) return missing(location, required);
                    try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                        p.load(r);
                    }
                }
            } else {
                try (Reader r = Files.newBufferedReader(path(location), StandardCharsets.UTF_8)) {
                    p.load(r);
                } catch (NoSuchFileException e) {
                    return missing(location, required);
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("rules file = \"" + location + "\": expected a readable properties file ("
                    + e.getClass().getSimpleName() + ")");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) out.put(name, p.getProperty(name));
        return out;
    }

    /** The file of a {@code file:PATH} location or a plain file path. */
    static Path path(String location) {
        return Path.of(location.startsWith(FILE) ? location.substring(FILE.length()) : location);
    }

    private static Map<String, String> missing(String location, boolean required) {
        if (!required) return null;
        throw new ConfigException("rules file = \"" + location
                + "\": expected an existing file, as classpath:PATH, file:PATH or a plain file path");
    }

    private static String firstNonBlank(String... values) {
        for (String v : values) if (v != null && !v.isBlank()) return v;
        return null;
    }
}
