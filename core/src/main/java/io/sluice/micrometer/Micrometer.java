package io.sluice.micrometer;

import io.sluice.engine.EngineListener;

import java.util.Optional;

/**
 * Whether Micrometer is on Sluice's class path, asked without touching any Micrometer class: only when it is
 * does {@link #listener} load {@link SluiceMeters}, the one class that imports Micrometer. Thread-safe.
 */
public final class Micrometer {
    /** The type a registry must have; also the servlet context attribute the filter reads it from. */
    public static final String REGISTRY_CLASS = "io.micrometer.core.instrument.MeterRegistry";
    private static final Class<?> REGISTRY_TYPE = find();

    private Micrometer() {
    }

    private static Class<?> find() {
        try {
            return Class.forName(REGISTRY_CLASS, false, Micrometer.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /** {@return whether {@code io.micrometer:micrometer-core} is visible to Sluice's class loader} */
    public static boolean present() {
        return REGISTRY_TYPE != null;
    }

    /** {@return {@code MeterRegistry} as Sluice's class loader sees it, when Micrometer is present} */
    public static Optional<Class<?>> registryType() {
        return Optional.ofNullable(REGISTRY_TYPE);
    }

    /**
     * The meters of one engine, in {@code registry} or else Micrometer's global registry; empty without Micrometer.
     *
     * @param registry a {@code MeterRegistry}, or null for {@code Metrics.globalRegistry}
     * @throws IllegalArgumentException when {@code registry} is not a {@code MeterRegistry}, or Micrometer is
     *                                  absent and a registry was given
     */
    public static Optional<EngineListener> listener(Object registry) {
        if (REGISTRY_TYPE == null) {
            if (registry != null) {
                throw new IllegalArgumentException("meterRegistry(" + registry.getClass().getName() + "): Micrometer ("
                        + REGISTRY_CLASS + ") is not visible to Sluice's class loader");
            }
            return Optional.empty();
        }
        if (registry != null && !REGISTRY_TYPE.isInstance(registry)) {
            throw new IllegalArgumentException("meterRegistry(" + registry.getClass().getName() + "): expected an "
                    + REGISTRY_CLASS + " (of the Micrometer Sluice sees)");
        }
        return Optional.of(SluiceMeters.in(registry));
    }
}
