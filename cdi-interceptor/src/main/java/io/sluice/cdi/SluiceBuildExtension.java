package io.sluice.cdi;

import io.sluice.servlet.ApplicationRules;
import io.sluice.servlet.LimitedUsages;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.Enhancement;
import jakarta.enterprise.inject.build.compatible.spi.Messages;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;
import jakarta.enterprise.inject.build.compatible.spi.SkipIfPortableExtensionPresent;
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.enterprise.lang.model.AnnotationInfo;
import jakarta.enterprise.lang.model.AnnotationMember;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import jakarta.enterprise.lang.model.declarations.MethodInfo;
import jakarta.enterprise.lang.model.types.Type;

import java.util.List;

/**
 * {@link SluiceExtension} for CDI Lite containers, which run no portable extension (Quarkus ArC): registers
 * {@link LimitedInterceptor} and {@link SluiceProducer} and checks that every rule a {@link Limited} names
 * exists, so an unknown name fails the application's build and start naming the class, method and rule. A
 * container that runs portable extensions (Weld) skips it and runs {@link SluiceExtension} instead.
 *
 * <p>In Quarkus the check runs at build time, against the rules as the build sees them: a rules file named by
 * {@code sluice.config} or {@code SLUICE_CONFIG}, else the {@code sluice.*} of {@code application.properties} (and
 * the rest of MicroProfile Config) over {@code classpath:sluice.properties} ({@link ApplicationRules}).
 */
@SkipIfPortableExtensionPresent(SluiceExtension.class)
public class SluiceBuildExtension implements BuildCompatibleExtension {
    private final LimitedUsages usages = new LimitedUsages();

    /**
     * Adds the interceptor and the producer to the application's beans.
     *
     * @param classes the classes the container discovers
     */
    @Discovery
    public void register(ScannedClasses classes) {
        classes.add(LimitedInterceptor.class.getName());
        classes.add(SluiceProducer.class.getName());
    }

    /**
     * Records every {@code @Limited} class and method, and the {@code @LimitKey} and {@code @LimitCost} parameters of
     * each method.
     *
     * @param type a class that uses the annotations
     */
    @Enhancement(types = Object.class, withSubtypes = true,
            withAnnotations = {Limited.class, LimitKey.class, LimitPlan.class, LimitCost.class})
    public void collect(ClassInfo type) {
        if (type.name().equals(LimitedInterceptor.class.getName())) return;
        AnnotationInfo onClass = type.annotation(Limited.class);
        if (onClass != null) usages.limited(type.name(), names(onClass));
        for (MethodInfo m : type.methods()) {
            String where = type.name() + "." + m.name();
            AnnotationInfo onMethod = m.annotation(Limited.class);
            if (onMethod != null) usages.limited(where, names(onMethod));
            usages.limitKeys(where, m.parameters().stream().filter(p -> p.hasAnnotation(LimitKey.class)).count());
            AnnotationInfo limiting = onMethod != null ? onMethod : onClass;
            usages.limitPlans(where, m.parameters().stream().filter(p -> p.hasAnnotation(LimitPlan.class)).count(),
                    limiting == null ? List.of() : names(limiting));
            usages.limitCosts(where, m.parameters().stream().filter(p -> p.hasAnnotation(LimitCost.class))
                    .map(p -> typeName(p.type())).toList());
        }
    }

    /**
     * Fails the build for every {@code @Limited} naming an unknown rule, every method with more than one
     * {@code @LimitKey}, and every {@code @LimitCost} that is not one int or long parameter.
     *
     * @param messages where the container collects deployment problems
     */
    @Validation
    public void validate(Messages messages) {
        usages.problems(SluiceProducer::loadRules).forEach(messages::error);
    }

    /** {@code int}, {@code java.lang.Long}...: as {@link Class#getName()} spells the parameter types that matter. */
    private static String typeName(Type type) {
        if (type.isPrimitive()) return type.asPrimitive().name();
        if (type.isClass()) return type.asClass().declaration().name();
        return type.toString();
    }

    private static List<String> names(AnnotationInfo limited) {
        return limited.value().asArray().stream().map(AnnotationMember::asString).toList();
    }
}
