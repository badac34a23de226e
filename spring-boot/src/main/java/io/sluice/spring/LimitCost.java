package io.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the {@code int} or {@code long} parameter of a {@link Limited} method whose value is the cost of the call:
 * the permits it takes from every named rate rule, in place of the rules' {@code cost} (concurrency rules still
 * count one call). At most one parameter of a method may carry it, and only an {@code int}, {@code long},
 * {@link Integer} or {@link Long} one: anything else fails the context's start.
 *
 * <p>A value below 1 (or a null {@code Integer}/{@code Long}) is a programming error: the call throws
 * {@link IllegalArgumentException} before any rule is checked or the method runs. A value above what a rule can
 * ever admit is a rejection ({@link io.sluice.LimitExceededException}) saying it can never fit.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface LimitCost {
}
