package io.sluice.spi;

/**
 * The backend's answer to a {@link LeaseRequest}.
 *
 * @param permitId  the permit to renew and release, or null when none was free
 * @param available permits still free afterwards
 */
public record LeaseOutcome(String permitId, int available) {
    /** {@return whether a permit was acquired} */
    public boolean acquired() {
        return permitId != null;
    }
}
