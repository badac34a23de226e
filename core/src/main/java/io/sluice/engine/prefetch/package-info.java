/**
 * Prefetch: permits a server takes from a busy key ahead of need, one {@link io.sluice.engine.prefetch.KeySlot} per
 * key moving through explicit {@link io.sluice.engine.prefetch.StockState}s, handed back when their hold ends.
 * Not an API.
 */
package io.sluice.engine.prefetch;
