package io.sluice.rule;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where an engine's rules come from, so that {@code Sluice.reload()} can read them again: a rules file found by
 * {@link ConfigLoader#source} (its location is resolved once, so a reload reads the same file), or properties
 * supplied by code ({@link #of}). A {@code file:} location (or a plain file path) is the one
 * {@code sluice.reload} can poll. Immutable and thread-safe; two sources of the same location and overrides are
 * equal (the servlet filter and the CDI producer share one engine by it); a source of code's own is equal only to
 * itself.
 */
public final class RulesSource {
    private final String location;
    private final Map<String, String> overrides;
    private final ClassLoader loader;
    private final Supplier<Map<String, String>> supplier;

    private RulesSource(String location, Map<String, String> overrides, ClassLoader loader,
                        Supplier<Map<String, String>> supplier) {
        this.location = location;
        this.overrides = Map.copyOf(overrides);
        this.loader = loader;
        this.supplier = supplier;
    }

    /** A rules file at a resolved location (null: {@code classpath:sluice.properties}, which may be missing). */
    static RulesSource file(String location, Map<String, String> overrides, ClassLoader loader) {
        return new RulesSource(location, overrides, loader, null);
    }

    /**
     * Properties that code supplies, asked again on every reload.
     *
     * @param properties the {@code sluice.*} properties, as a rules file would hold them
     * @return the source
     */
    public static RulesSource of(Supplier<Map<String, String>> properties) {
        return new RulesSource(null, Map.of(), null, Objects.requireNonNull(properties));
    }

    /**
     * Reads the rules again: the file's properties with the overrides applied, not parsed yet.
     *
     * @return the properties
     * @throws io.sluice.ConfigException when the file is missing or unreadable
     */
    public Map<String, String> load() {
        if (supplier != null) return new LinkedHashMap<>(supplier.get());
        return ConfigLoader.loadResolved(location, overrides, loader);
    }

    /**
     * The file {@code sluice.reload} polls: present for a {@code file:} location or a plain file path.
     *
     * @return the file, if the rules come from one
     */
    public Optional<Path> file() {
        if (location == null || location.startsWith(ConfigLoader.CLASSPATH)) return Optional.empty();
        return Optional.of(ConfigLoader.path(location));
    }

    /** {@return whether {@code sluice.reload} can poll it: a file, or properties supplied by code} */
    public boolean pollable() {
        return supplier != null || file().isPresent();
    }

    /** {@return where the rules come from, for log messages} */
    public String description() {
        if (supplier != null) return "properties supplied by the application";
        return location != null ? location : ConfigLoader.DEFAULT_LOCATION;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        return o instanceof RulesSource other && supplier == null && other.supplier == null
                && description().equals(other.description()) && overrides.equals(other.overrides);
    }

    @Override
    public int hashCode() {
        return Objects.hash(description(), overrides);
    }

    @Override
    public String toString() {
        return description();
    }
}
