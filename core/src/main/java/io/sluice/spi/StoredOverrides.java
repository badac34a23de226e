package io.sluice.spi;

import java.util.List;

/**
 * The overrides a backend stores, and the version they are of. Immutable.
 *
 * @param version   changes on every write; 0 when none were ever stored
 * @param overrides every override stored (some may have ended: readers compare their end with their own clock)
 */
public record StoredOverrides(long version, List<StoredOverride> overrides) {
    /** None stored. */
    public static final StoredOverrides NONE = new StoredOverrides(0, List.of());

    /**
     * @param version   changes on every write; 0 when none were ever stored
     * @param overrides every override stored
     */
    public StoredOverrides {
        overrides = List.copyOf(overrides);
    }
}
