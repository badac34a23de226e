package io.sluice.cdi;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls to a CDI bean's business methods by the named rules of the rules file. On a class it
 * applies to every business method; on a method it replaces the class's rules for that method
 * ({@code @Limited({})} on a method exempts it).
 *
 * <p>A rejected call throws {@link io.sluice.LimitExceededException} before the method runs. Concurrency
 * permits are held until the method returns or throws, or, for a method returning a
 * {@link java.util.concurrent.CompletionStage}, until that stage completes. Every named rule must exist
 * in the rules file: an unknown name fails deployment.
 *
 * <p>The key of each rule is the value of the method's {@link LimitKey} parameter when it has one;
 * otherwise it is resolved by the rule's {@code key}: {@code global}, {@code user} (the CDI
 * {@code Principal}), and the HTTP kinds from the current HTTP request when the container offers one. The plan
 * of a rule with plans is the value of the method's {@link LimitPlan} parameter when it has one, else read from
 * the current HTTP request by the rule's {@code plan}.
 */
@Inherited
@InterceptorBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Limited {
    /** {@return names of rules in the rules file ({@code sluice.rules.<name>.*}); none exempts a method} */
    @Nonbinding
    String[] value();
}
