package io.sluice.spring;

import io.sluice.Sluice;
import io.sluice.servlet.LimitedUsages;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks every {@link Limited} of the application's beans once its singletons exist, so that a mistake fails the
 * context's start rather than a call: an unknown rule, two {@link LimitKey} parameters, a {@link LimitCost} that is
 * not an int or long, a {@link LimitPlan} on rules without plans (the same messages as CDI's deployment check), and a
 * limited singleton that is not behind a proxy (with {@code spring.aop.auto=false}: its calls would not be limited).
 * Then tells the engine which rules the beans need, so that a reload cannot remove them.
 */
final class LimitedBeans implements SmartInitializingSingleton {
    private final ConfigurableListableBeanFactory beans;
    private final ObjectProvider<Sluice> sluices;

    LimitedBeans(ConfigurableListableBeanFactory beans, ObjectProvider<Sluice> sluices) {
        this.beans = beans;
        this.sluices = sluices;
    }

    @Override
    public void afterSingletonsInstantiated() {
        LimitedUsages usages = new LimitedUsages();
        List<String> unproxied = new ArrayList<>();
        Set<Class<?>> seen = new HashSet<>();
        for (String name : beans.getBeanDefinitionNames()) {
            Class<?> type = typeOf(name);
            if (type == null) continue;
            boolean limited = seen.add(type) ? scan(type, usages) : anyLimited(type);
            if (limited && beans.containsSingleton(name) && !AopUtils.isAopProxy(beans.getSingleton(name))) {
                unproxied.add("@Limited bean '" + name + "' (" + type.getName() + ") is not behind a proxy, so its "
                        + "calls would not be limited: keep spring.aop.auto=true (the default)");
            }
        }
        Map<String, List<String>> named = usages.named();
        if (named.isEmpty() && unproxied.isEmpty()) return;
        Sluice sluice = sluices.getObject();
        List<String> problems = new ArrayList<>(usages.problems(sluice::rules));
        problems.addAll(unproxied);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Sluice: " + problems.size() + " problem(s) with @Limited:\n  - "
                    + String.join("\n  - ", problems));
        }
        named.forEach(sluice::requireRules);
    }

    /** The bean's own class (not a proxy's), without creating anything; null when it cannot be known. */
    private Class<?> typeOf(String name) {
        try {
            Class<?> type = beans.getType(name, false);
            return type == null ? null : ClassUtils.getUserClass(type);
        } catch (RuntimeException | LinkageError e) {
            return null; // a bean whose class cannot be loaded here is not ours to check
        }
    }

    /** Records every {@link Limited} of {@code type}; whether it has one. */
    private static boolean scan(Class<?> type, LimitedUsages usages) {
        Limited onClass = type.getAnnotation(Limited.class);
        if (onClass != null) usages.limited(type.getName(), List.of(onClass.value()));
        boolean any = onClass != null;
        for (Method m : type.getMethods()) {
            if (LimitedMethod.objectMethod(m) || Modifier.isStatic(m.getModifiers())) continue;
            Limited own = m.getAnnotation(Limited.class);
            Limited applies = LimitedMethod.limitedOf(type, m);
            if (applies == null) continue;
            any = true;
            String where = type.getName() + "." + m.getName();
            if (own != null) usages.limited(where, List.of(own.value()));
            usages.limitKeys(where, count(m, LimitKey.class));
            usages.limitPlans(where, count(m, LimitPlan.class), List.of(applies.value()));
            usages.limitCosts(where, Arrays.stream(m.getParameters())
                    .filter(p -> p.isAnnotationPresent(LimitCost.class)).map(p -> p.getType().getName()).toList());
        }
        return any;
    }

    private static boolean anyLimited(Class<?> type) {
        if (type.isAnnotationPresent(Limited.class)) return true;
        for (Method m : type.getMethods()) if (m.isAnnotationPresent(Limited.class)) return true;
        return false;
    }

    private static long count(Method m, Class<? extends Annotation> annotation) {
        return Arrays.stream(m.getParameters()).filter(p -> p.isAnnotationPresent(annotation)).count();
    }
}
