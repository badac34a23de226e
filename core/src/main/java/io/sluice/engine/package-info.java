/**
 * The engine behind {@link io.sluice.Sluice}: the live rules and their reloads, the admission of a request, the lease path, the
 * backend's deadlines and circuit breaker, and the engine's thread. Not an API: its public types serve Sluice's own
 * modules and may change in any release.
 */
package io.sluice.engine;
