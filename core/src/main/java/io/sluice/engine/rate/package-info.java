/**
 * The rate path: a rule's ladder of steps ({@link io.sluice.engine.rate.RatePath}), from this server's stock and
 * the shield down to the backend call, coalesced or elastic. Not an API.
 */
package io.sluice.engine.rate;
