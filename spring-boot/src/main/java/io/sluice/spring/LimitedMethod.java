package io.sluice.spring;

import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import org.springframework.util.ReflectionUtils;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * What {@link LimitedInterceptor} does for one method of one bean class: the rules its {@link Limited} names (its
 * own, else its class's), and where its {@link LimitKey}, {@link LimitPlan} and {@link LimitCost} parameters are.
 * Read once per class and method. Thread-safe.
 */
final class LimitedMethod {
    final List<String> ruleNames;
    /** The {@link LimitKey} parameter, or -1. */
    final int keyIndex;
    /** The {@link LimitPlan} parameter, or -1. */
    final int planIndex;
    /** The {@link LimitCost} parameter, or -1. */
    final int costIndex;
    /** Whether the method returns a stage: its permits are held until the stage completes. */
    final boolean async;
    /** Where the annotation stands, for messages. */
    final String where;
    private volatile Resolved resolved;

    private record Resolved(RuleSet set, List<Rule> rules) {
    }

    private LimitedMethod(String where, List<String> ruleNames, int keyIndex, int planIndex, int costIndex, boolean async) {
        this.where = where;
        this.ruleNames = ruleNames;
        this.keyIndex = keyIndex;
        this.planIndex = planIndex;
        this.costIndex = costIndex;
        this.async = async;
    }

    /** {@code method} as called on a bean of class {@code target}: a method's {@link Limited} wins over its class's. */
    static LimitedMethod of(Class<?> target, Method method) {
        Limited limited = objectMethod(method) ? null : limitedOf(target, method);
        String[] names = limited == null ? new String[0] : limited.value();
        return new LimitedMethod(method.getDeclaringClass().getName() + "." + method.getName(),
                Arrays.stream(names).distinct().sorted().toList(), indexOf(method, LimitKey.class),
                indexOf(method, LimitPlan.class), indexOf(method, LimitCost.class),
                CompletionStage.class.isAssignableFrom(method.getReturnType()));
    }

    /** The {@link Limited} that applies to {@code method} on {@code target}, or null. */
    static Limited limitedOf(Class<?> target, Method method) {
        Limited limited = method.getAnnotation(Limited.class);
        if (limited == null) limited = target.getAnnotation(Limited.class);
        if (limited == null) limited = method.getDeclaringClass().getAnnotation(Limited.class);
        return limited;
    }

    /** toString, equals and hashCode (a bean's own or Object's) are not its business: a class's rules skip them. */
    static boolean objectMethod(Method method) {
        return ReflectionUtils.isToStringMethod(method) || ReflectionUtils.isEqualsMethod(method)
                || ReflectionUtils.isHashCodeMethod(method) || method.getDeclaringClass() == Object.class;
    }

    /** The first parameter carrying {@code annotation}, or -1. */
    static int indexOf(Method method, Class<? extends Annotation> annotation) {
        Annotation[][] params = method.getParameterAnnotations();
        for (int i = 0; i < params.length; i++) {
            for (Annotation a : params[i]) if (a.annotationType() == annotation) return i;
        }
        return -1;
    }

    /**
     * The call's {@link LimitCost} argument (the start-up check made sure it is an int or long). Below 1 it is a
     * programming error, thrown before any rule counts the call.
     */
    long cost(Object[] arguments) {
        Object arg = arguments[costIndex];
        long cost = arg instanceof Number n ? n.longValue() : 0;
        if (arg == null || cost < 1) {
            throw new IllegalArgumentException("@LimitCost parameter " + (costIndex + 1) + " of " + where + " is " + arg
                    + ": expected the permits the call takes, at least 1");
        }
        return cost;
    }

    /** The rules, looked up once per rule set (a reload makes a new one). */
    List<Rule> rules(RuleSet set) {
        Resolved r = resolved;
        if (r == null || r.set() != set) {
            List<Rule> rules = ruleNames.stream().map(n -> set.get(n).orElseThrow(() -> new IllegalStateException(
                    "@Limited names unknown rule '" + n + "'"))).toList();
            resolved = r = new Resolved(set, rules);
        }
        return r.rules();
    }
}
