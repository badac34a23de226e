package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.rule.RuleSet;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;

import java.util.List;

/**
 * Registers {@link LimitedInterceptor} and {@link SluiceProducer}, and checks at deployment that every
 * rule named by a {@link Limited} annotation exists: an unknown name, a rules file that does not parse,
 * a method with more than one {@link LimitKey} parameter, or a {@link LimitCost} parameter that is not one int or
 * long, is a deployment problem naming the class,
 * the method and the rule. {@link SluiceBuildExtension} does the same in CDI Lite containers.
 */
public class SluiceExtension implements Extension {
    private final LimitedUsages usages = new LimitedUsages();

    void register(@Observes BeforeBeanDiscovery bbd) {
        bbd.addAnnotatedType(LimitedInterceptor.class, LimitedInterceptor.class.getName());
        bbd.addAnnotatedType(SluiceProducer.class, SluiceProducer.class.getName());
    }

    <T> void collect(@Observes @WithAnnotations({Limited.class, LimitKey.class, LimitCost.class}) ProcessAnnotatedType<T> pat) {
        AnnotatedType<T> type = pat.getAnnotatedType();
        Class<T> cls = type.getJavaClass();
        if (cls == LimitedInterceptor.class) return;
        Limited onClass = type.getAnnotation(Limited.class);
        if (onClass != null) usages.limited(cls.getName(), List.of(onClass.value()));
        for (AnnotatedMethod<? super T> m : type.getMethods()) {
            String where = m.getJavaMember().getDeclaringClass().getName() + "." + m.getJavaMember().getName();
            Limited onMethod = m.getAnnotation(Limited.class);
            if (onMethod != null) usages.limited(where, List.of(onMethod.value()));
            usages.limitKeys(where, m.getParameters().stream().filter(p -> p.isAnnotationPresent(LimitKey.class)).count());
            usages.limitCosts(where, m.getParameters().stream().filter(p -> p.isAnnotationPresent(LimitCost.class))
                    .map(p -> p.getJavaParameter().getType().getName()).toList());
        }
    }

    void validate(@Observes AfterDeploymentValidation adv, BeanManager bm) {
        usages.problems(() -> rulesOf(bm)).forEach(p -> adv.addDeploymentProblem(new DeploymentException(p)));
    }

    /** The rules of the Sluice the interceptor will use: the rules file, or those of the application's own Sluice. */
    private static RuleSet rulesOf(BeanManager bm) {
        Bean<?> bean = bm.resolve(bm.getBeans(Sluice.class));
        if (bean == null) throw new IllegalStateException("no Sluice bean is available");
        if (bean.getBeanClass() == SluiceProducer.class) return SluiceProducer.loadRules();
        return ((Sluice) bm.getReference(bean, Sluice.class, bm.createCreationalContext(bean))).rules();
    }
}
