package io.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls to a Spring bean's public methods by the named rules of the {@code sluice.*} properties, as
 * {@code @io.sluice.cdi.Limited} does for CDI beans. On a class it applies to every public method; on a method it
 * replaces the class's rules for that method ({@code @Limited({})} on a method exempts it).
 *
 * <p>A rejected call throws {@link io.sluice.LimitExceededException} before the method runs (Sluice's handler
 * answers it with a 429 in a web application). Concurrency permits are held until the method returns or throws, or,
 * for a method returning a {@link java.util.concurrent.CompletionStage}, until that stage completes. Every named
 * rule must exist: an unknown name fails the application context's start.
 *
 * <p>The key of each rule is the value of the method's {@link LimitKey} parameter when it has one; otherwise it is
 * resolved by the rule's {@code key} from the HTTP request the calling thread serves ({@code user} is the request's
 * principal, which Spring Security sets). The plan comes from the {@link LimitPlan} parameter, else from the
 * request. Applied through Spring AOP: only calls through the bean's proxy are limited, not calls a bean makes to
 * itself.
 */
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Limited {
    /** {@return names of rules ({@code sluice.rules.<name>.*}); none exempts a method} */
    String[] value();
}
