package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.rule.RuleSet;
import io.sluice.servlet.ApplicationSluice;
import io.sluice.servlet.LimitedUsages;
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
import java.util.Map;

/**
 * Registers {@link LimitedInterceptor} and {@link SluiceProducer}, and checks at deployment that every
 * rule named by a {@link Limited} annotation exists: an unknown name, a rules file that does not parse,
 * a method with more than one {@link LimitKey} or {@link LimitPlan} parameter, a {@link LimitPlan} on a method
 * whose rules have no plans, or a {@link LimitCost} parameter that is not one int or long, is a deployment problem
 * naming the class,
 * the method and the rule. {@link SluiceBuildExtension} does the same in CDI Lite containers.
 */
public class SluiceExtension implements Extension {
    private final LimitedUsages usages = new LimitedUsages();

    void register(@Observes BeforeBeanDiscovery bbd) {
        bbd.addAnnotatedType(LimitedInterceptor.class, LimitedInterceptor.class.getName());
        bbd.addAnnotatedType(SluiceProducer.class, SluiceProducer.class.getName());
    }

    <T> void collect(@Observes @WithAnnotations({Limited.class, LimitKey.class, LimitPlan.class, LimitCost.class})
                     ProcessAnnotatedType<T> pat) {
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
            Limited limiting = onMethod != null ? onMethod : onClass;
            usages.limitPlans(where, m.getParameters().stream().filter(p -> p.isAnnotationPresent(LimitPlan.class)).count(),
                    limiting == null ? List.of() : List.of(limiting.value()));
            usages.limitCosts(where, m.getParameters().stream().filter(p -> p.isAnnotationPresent(LimitCost.class))
                    .map(p -> p.getJavaParameter().getType().getName()).toList());
        }
    }

    void validate(@Observes AfterDeploymentValidation adv, BeanManager bm) {
        List<String> problems = usages.problems(() -> rulesOf(bm));
        problems.forEach(p -> adv.addDeploymentProblem(new DeploymentException(p)));
        if (problems.isEmpty()) requireNamedRules(bm);
    }

    /**
     * The engine keeps every rule a deployed {@code @Limited} names: a reload that would remove one is refused. The
     * default producer's engine may not exist yet (it is built on first use, or by the servlet filter): the names
     * are recorded for it. An application's own engine is told at once.
     */
    private void requireNamedRules(BeanManager bm) {
        Map<String, List<String>> named = usages.named();
        if (named.isEmpty()) return;
        Bean<?> bean = bm.resolve(bm.getBeans(Sluice.class));
        if (bean == null) return;
        if (bean.getBeanClass() == SluiceProducer.class) {
            ApplicationSluice.require(SluiceProducer.rulesSource(), named);
        } else {
            Sluice own = (Sluice) bm.getReference(bean, Sluice.class, bm.createCreationalContext(bean));
            named.forEach(own::requireRules);
        }
    }

    /** The rules of the Sluice the interceptor will use: the rules file, or those of the application's own Sluice. */
    private static RuleSet rulesOf(BeanManager bm) {
        Bean<?> bean = bm.resolve(bm.getBeans(Sluice.class));
        if (bean == null) throw new IllegalStateException("no Sluice bean is available");
        if (bean.getBeanClass() == SluiceProducer.class) return SluiceProducer.loadRules();
        return ((Sluice) bm.getReference(bean, Sluice.class, bm.createCreationalContext(bean))).rules();
    }
}
