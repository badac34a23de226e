package io.sluice.cdi;

import io.sluice.ConfigException;
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

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Registers {@link LimitedInterceptor} and {@link SluiceProducer}, and checks at deployment that every
 * rule named by a {@link Limited} annotation exists: an unknown name, a rules file that does not parse,
 * or a method with more than one {@link LimitKey} parameter is a deployment problem naming the class,
 * the method and the rule. Also holds the interceptor's per-method plans for the life of the container.
 */
public class SluiceExtension implements Extension {
    /** Where a {@code @Limited} stands ("com.x.Foo" or "com.x.Foo.bar") and the rules it names. */
    private record Usage(String where, List<String> names) {
    }

    private final List<Usage> usages = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private final Map<LimitedInterceptor.PlanKey, LimitedInterceptor.Plan> plans = new ConcurrentHashMap<>();

    void register(@Observes BeforeBeanDiscovery bbd) {
        bbd.addAnnotatedType(LimitedInterceptor.class, LimitedInterceptor.class.getName());
        bbd.addAnnotatedType(SluiceProducer.class, SluiceProducer.class.getName());
    }

    <T> void collect(@Observes @WithAnnotations({Limited.class, LimitKey.class}) ProcessAnnotatedType<T> pat) {
        AnnotatedType<T> type = pat.getAnnotatedType();
        Class<T> cls = type.getJavaClass();
        if (cls == LimitedInterceptor.class) return;
        synchronized (this) {
            Limited onClass = type.getAnnotation(Limited.class);
            if (onClass != null) usages.add(new Usage(cls.getName(), List.of(onClass.value())));
            for (AnnotatedMethod<? super T> m : type.getMethods()) {
                String where = m.getJavaMember().getDeclaringClass().getName() + "." + m.getJavaMember().getName();
                Limited onMethod = m.getAnnotation(Limited.class);
                if (onMethod != null) usages.add(new Usage(where, List.of(onMethod.value())));
                long keys = m.getParameters().stream().filter(p -> p.isAnnotationPresent(LimitKey.class)).count();
                if (keys > 1) problems.add("@LimitKey on " + keys + " parameters of " + where + ": expected at most one");
            }
        }
    }

    void validate(@Observes AfterDeploymentValidation adv, BeanManager bm) {
        List<String> found;
        List<Usage> used;
        synchronized (this) {
            found = new ArrayList<>(problems);
            used = new ArrayList<>(usages);
        }
        found.forEach(p -> adv.addDeploymentProblem(new DeploymentException(p)));
        if (used.stream().allMatch(u -> u.names().isEmpty())) return;

        RuleSet rules;
        try {
            rules = rulesOf(bm);
        } catch (ConfigException e) {
            adv.addDeploymentProblem(new DeploymentException("Sluice rules file is invalid: " + e.getMessage(), e));
            return;
        } catch (RuntimeException e) {
            adv.addDeploymentProblem(new DeploymentException("No usable Sluice for @Limited: " + e, e));
            return;
        }
        List<String> known = rules.all().stream().map(r -> r.name()).toList();
        Set<String> reported = new HashSet<>();
        for (Usage u : used) {
            for (String name : u.names()) {
                if (rules.get(name).isEmpty() && reported.add(u.where() + "\0" + name)) {
                    adv.addDeploymentProblem(new DeploymentException("@Limited on " + u.where() + " names unknown rule '"
                            + name + "'; rules are: " + known));
                }
            }
        }
    }

    /** The rules of the Sluice the interceptor will use: the rules file, or those of the application's own Sluice. */
    private static RuleSet rulesOf(BeanManager bm) {
        Bean<?> bean = bm.resolve(bm.getBeans(Sluice.class));
        if (bean == null) throw new IllegalStateException("no Sluice bean is available");
        if (bean.getBeanClass() == SluiceProducer.class) return SluiceProducer.loadRules();
        return ((Sluice) bm.getReference(bean, Sluice.class, bm.createCreationalContext(bean))).rules();
    }

    LimitedInterceptor.Plan plan(LimitedInterceptor.PlanKey key, Function<LimitedInterceptor.PlanKey, LimitedInterceptor.Plan> compute) {
        return plans.computeIfAbsent(key, compute);
    }
}
