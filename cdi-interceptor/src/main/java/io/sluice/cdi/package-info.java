/**
 * Rate and concurrency limits on CDI bean methods: {@link io.sluice.cdi.Limited} names the rules,
 * {@link io.sluice.cdi.LimitKey} the parameter that keys them, {@link io.sluice.cdi.LimitPlan} the parameter that
 * chooses their plan, and a rejected call throws
 * {@link io.sluice.LimitExceededException}. {@link io.sluice.cdi.SluiceProducer} produces the shared engine;
 * {@link io.sluice.cdi.LimitedInterceptor} and {@link io.sluice.cdi.SluiceExtension} are public only because
 * the container instantiates them.
 */
package io.sluice.cdi;
