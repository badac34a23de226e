package io.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter of a {@link Limited} method whose {@code toString()} is the plan of the call for every named
 * rule with plans ({@code sluice.rules.<name>.plans.<plan>.*}), instead of the rule's {@code plan} source. A null
 * argument, or a value that names none of a rule's plans, gets the rule's own limits. At most one parameter of a
 * method may carry it, and at least one rule the method names must have plans; both are checked when the context starts.
 *
 * <pre>{@code
 * @Limited("reports")
 * public Report build(@LimitKey String tenant, @LimitPlan Tier tier) { ... }   // Tier.toString(): "free", "pro"
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface LimitPlan {
}
