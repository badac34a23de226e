package io.sluice.cdi;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.io.Serializable;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Applies the rules of {@link Limited} to a call: admits it or throws
 * {@link io.sluice.LimitExceededException}, and returns concurrency permits exactly once when the method
 * returns or throws, or when its {@link CompletionStage} completes. The plan of each method (its rules,
 * its {@link LimitKey} parameter, whether it is asynchronous) is computed once per bean class and method.
 *
 * <p>Enabled for the whole application by its {@link Priority}; registered by {@link SluiceExtension}.
 */
@Limited({})
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
public class LimitedInterceptor implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final boolean SERVLET_PRESENT = classPresent("jakarta.servlet.http.HttpServletRequest");

    /** The application's engine: {@link SluiceProducer}'s, or an enabled alternative. */
    @Inject
    Instance<Sluice> sluices;
    /** The caller principal, for rules keyed {@code user} outside an HTTP request. */
    @Inject
    Instance<Principal> principals;
    /** Finds the {@link SluiceExtension} that holds the per-method plans. */
    @Inject
    BeanManager beanManager;

    private transient volatile Sluice sluice;
    private transient volatile SluiceExtension extension;

    /**
     * Admits the call by the method's rules, or throws before it runs.
     *
     * @param ctx the intercepted call
     * @return what the method returns
     * @throws io.sluice.LimitExceededException when a rule rejects the call
     * @throws Exception whatever the method throws
     */
    @AroundInvoke
    public Object limit(InvocationContext ctx) throws Exception {
        Plan plan = extension()
                .plan(new PlanKey(targetClass(ctx), ctx.getMethod()), k -> Plan.of(k, ctx));
        if (plan.ruleNames.isEmpty()) return ctx.proceed();

        Sluice s = sluice();
        KeySource keys = plan.keyIndex >= 0 ? KeySource.fixed(text(ctx.getParameters()[plan.keyIndex]))
                : s.keysOf(new CallView(this::userName, this::httpRequest));
        Admission admission = s.admit(plan.rules(s.rules()), keys).toCompletableFuture().join();
        admission.orThrow();

        Object result;
        try {
            result = ctx.proceed();
        } catch (Exception | Error e) {
            admission.close();
            throw e;
        }
        if (plan.async && result instanceof CompletionStage<?> stage) {
            stage.whenComplete((v, e) -> admission.close());
        } else {
            admission.close();
        }
        return result;
    }

    private SluiceExtension extension() {
        SluiceExtension e = extension;
        if (e == null) extension = e = beanManager.getExtension(SluiceExtension.class);
        return e;
    }

    private Sluice sluice() {
        Sluice s = sluice;
        if (s == null) sluice = s = sluices.get();
        return s;
    }

    private static String text(Object arg) {
        return arg == null ? null : arg.toString();
    }

    /** The caller principal's name, from the current HTTP request or else the CDI {@code Principal}; null if anonymous. */
    private String userName() {
        try {
            if (!principals.isResolvable()) return null;
            Principal p = principals.get();
            String name = p == null ? null : p.getName();
            return name == null || name.isEmpty() ? null : name;
        } catch (RuntimeException e) {
            return null; // no security services, or no caller
        }
    }

    private io.sluice.key.RequestView httpRequest() {
        return SERVLET_PRESENT ? HttpRequests.current(beanManager) : null;
    }

    private static Class<?> targetClass(InvocationContext ctx) {
        Object target = ctx.getTarget();
        return target != null ? target.getClass() : ctx.getMethod().getDeclaringClass();
    }

    private static boolean classPresent(String name) {
        try {
            Class.forName(name, false, LimitedInterceptor.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    record PlanKey(Class<?> target, Method method) {
    }

    /** What the interceptor does for one method of one bean class. Thread-safe. */
    static final class Plan {
        final List<String> ruleNames;
        final int keyIndex;
        final boolean async;
        private volatile Resolved resolved;

        private record Resolved(RuleSet set, List<Rule> rules) {
        }

        private Plan(List<String> ruleNames, int keyIndex, boolean async) {
            this.ruleNames = ruleNames;
            this.keyIndex = keyIndex;
            this.async = async;
        }

        /** Method-level {@code @Limited} wins over the class's; bindings added by extensions are honoured on Weld. */
        static Plan of(PlanKey key, InvocationContext ctx) {
            Method m = key.method();
            Limited limited = m.getAnnotation(Limited.class);
            if (limited == null) limited = key.target().getAnnotation(Limited.class);
            if (limited == null) limited = m.getDeclaringClass().getAnnotation(Limited.class);
            if (limited == null) limited = fromContext(ctx);
            String[] names = limited == null ? new String[0] : limited.value();
            int keyIndex = -1;
            Annotation[][] params = m.getParameterAnnotations();
            for (int i = 0; i < params.length && keyIndex < 0; i++) {
                for (Annotation a : params[i]) {
                    if (a.annotationType() == LimitKey.class) keyIndex = i;
                }
            }
            return new Plan(Arrays.stream(names).distinct().sorted().toList(), keyIndex,
                    CompletionStage.class.isAssignableFrom(m.getReturnType()));
        }

        /** Bindings added by an extension or InterceptionFactory are not on the class: Weld lists them in the context data. */
        private static Limited fromContext(InvocationContext ctx) {
            if (ctx.getContextData().get("org.jboss.weld.interceptor.bindings") instanceof Iterable<?> bindings) {
                for (Object b : bindings) if (b instanceof Limited l) return l;
            }
            return null;
        }

        /** The rules, looked up once per rule set. */
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
}
