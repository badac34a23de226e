/**
 * The one extension point between Sluice and a store of limits: {@link io.sluice.spi.LimiterBackend}.
 * Every backend runs the shared contract suite ({@code io.sluice.spi.BackendContract}, in the test-jar of
 * {@code sluice-core}) against its real store.
 */
package io.sluice.spi;
