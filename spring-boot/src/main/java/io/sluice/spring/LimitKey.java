package io.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter of a {@link Limited} method whose {@code toString()} is the key of every rule
 * (rules keyed {@code global} stay global). A null argument is a missing key: the rule's
 * {@code on-missing-key} decides. At most one parameter of a method may carry it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface LimitKey {
}
