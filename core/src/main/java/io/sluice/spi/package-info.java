/**
 * Between Sluice and a store of limits: {@link io.sluice.spi.LimiterBackend}, the operations every backend implements,
 * and optional capabilities beside it ({@link io.sluice.spi.Batching}, {@link io.sluice.spi.Prefetching},
 * {@link io.sluice.spi.Refunding}, {@link io.sluice.spi.ServerClock}, {@link io.sluice.spi.Connecting},
 * {@link io.sluice.spi.KeyLayout}, {@link io.sluice.spi.Announcing}) that the engine detects once, so that none silently does nothing. A
 * {@link io.sluice.spi.BackendProvider} on the class path ({@code ServiceLoader}) makes the default backend. Every
 * backend runs the shared contract suite ({@code io.sluice.spi.BackendContract}, in the test-jar of
 * {@code sluice-core}) against its real store.
 */
package io.sluice.spi;
