package io.sluice.cdi;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.servlet.CallAudience;
import io.sluice.servlet.CallChain;
import io.sluice.servlet.CallPlanSource;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.control.RequestContextController;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Applies the rules of {@link Limited} to a call: admits it or throws
 * {@link io.sluice.LimitExceededException}, and ends it exactly once when the method returns or throws, or when its
 * {@link CompletionStage} completes ({@link CallEnding}: a rule's {@code count} by whether it threw, the cost the
 * call reported to its {@link Settlement}, then its concurrency permits returned). A method returning a
 * {@link CompletionStage} never blocks its caller on Redis: it gets a stage that completes with the
 * method's result, or exceptionally with the rejection, once Redis has answered. What each method needs (its rules,
 * its {@link LimitKey}, {@link LimitPlan} and {@link LimitCost} parameters, whether it is asynchronous) is read once
 * per bean class and method into a {@code LimitedMethod}.
 *
 * <p>Enabled for the whole application by its {@link Priority}; registered by {@link SluiceExtension} (portable
 * CDI) or {@link SluiceBuildExtension} (CDI Lite, such as Quarkus).
 */
@Limited({})
@Interceptor
@Priority(LimitedInterceptor.PRIORITY)
public class LimitedInterceptor implements Serializable {
    /**
     * Before {@code @Transactional} ({@code PLATFORM_BEFORE + 200}): a limit is decided before a transaction
     * opens, so a rejected call never begins one and a transaction never waits on Redis.
     */
    public static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 100;
    private static final long serialVersionUID = 1L;
    /**
     * Each method of each bean class as the interceptor reads it, for the life of the application (its class
     * loader): it depends only on the class and its annotations, so every container (Weld, ArC) can share it.
     */
    private static final Map<MethodKey, LimitedMethod> METHODS = new ConcurrentHashMap<>();
    private static final boolean SERVLET_PRESENT = Classes.present("jakarta.servlet.http.HttpServletRequest");
    private static final boolean SECURITY_PRESENT = Classes.present("jakarta.security.enterprise.SecurityContext");

    /** The application's engine: {@link SluiceProducer}'s, or an enabled alternative. */
    @Inject
    Instance<Sluice> sluices;
    /** The caller principal, for rules keyed {@code user} outside an HTTP request. */
    @Inject
    Instance<Principal> principals;
    /** Finds the current HTTP request for the keys and plans read from it. */
    @Inject
    BeanManager beanManager;
    /** A request context of its own for a non-blocking call admitted after its caller has returned. */
    @Inject
    Instance<RequestContextController> requestContexts;

    private transient volatile Sluice sluice;

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
        LimitedMethod method = METHODS.computeIfAbsent(new MethodKey(targetClass(ctx), ctx.getMethod()),
                k -> LimitedMethod.of(k, ctx));
        if (method.ruleNames.isEmpty()) return ctx.proceed();

        Sluice s = sluice();
        method.requiredBy(s);
        List<Rule> rules = method.rules(s.rules());
        // A rule the filter applied to this request already counted it: one request, one count.
        if (SERVLET_PRESENT) rules = HttpRequests.notAppliedByFilter(rules);
        // A rule an outer @Limited call on this thread was admitted by covers this nested call: one chain, one count.
        rules = CallChain.notHeld(rules);
        if (rules.isEmpty()) return ctx.proceed();
        KeySource keys = method.keyIndex >= 0 ? KeySource.fixed(text(ctx.getParameters()[method.keyIndex]))
                : s.keysOf(new CallView(this::userName, this::httpRequest, this::callerInRole));
        keys = CallPlanSource.of(keys, method.keyIndex < 0, method.planIndex >= 0,
                method.planIndex >= 0 ? ctx.getParameters()[method.planIndex] : null, rules,
                () -> s.keysOf(new CallView(this::userName, this::httpRequest, this::callerInRole)));
        keys = CallAudience.of(keys, method.keyIndex < 0, rules, () -> s.keysOf(new CallView(this::userName, this::httpRequest, this::callerInRole)));
        if (method.costIndex >= 0) keys = keys.withCost(method.cost(ctx));
        CompletableFuture<Admission> admitted = s.admit(rules, keys).toCompletableFuture();
        if (method.nonBlocking && !admitted.isDone()) {
            return proceedWhenAdmitted(ctx, admitted, requestContexts.get(), rules);
        }
        Admission admission = admitted.join();
        if (method.nonBlocking && admission.rejection().isPresent()) {
            // A method that returns a stage reports its rejection in the stage, however soon the answer came (the
            // attack shield answers at once): its caller handles one failure path, not a throw and a failed stage.
            try {
                admission.orThrow();
            } catch (LimitExceededException rejected) {
                return CompletableFuture.failedFuture(rejected);
            }
        }
        admission.orThrow();

        CallEnding ending = new CallEnding(admission, rules);
        Object result;
        Runnable leaveChain = CallChain.enter(rules);
        Runnable leaveSettlement = ending.enter();
        try {
            result = ctx.proceed();
        } catch (Exception | Error e) {
            ending.endAndWait(e);
            throw e;
        } finally {
            leaveSettlement.run();
            leaveChain.run();
        }
        if (method.async && result instanceof CompletionStage<?> stage) {
            if (!method.nonBlocking) {
                stage.whenComplete((v, e) -> ending.end(e));
                return result;
            }
            // The caller's stage completes once the call has ended: its next call is decided on what this one gave back.
            CompletableFuture<Object> ended = new CompletableFuture<>();
            stage.whenComplete((v, e) -> ending.end(e).whenComplete((x, y) -> {
                if (e != null) ended.completeExceptionally(e);
                else ended.complete(v);
            }));
            return ended;
        }
        ending.endAndWait(null);
        return result;
    }

    /**
     * A method returning {@code CompletionStage} or {@code CompletableFuture} while Redis has not answered yet:
     * the caller gets a stage at once; the method runs when Redis admits the call (on a pool thread, not
     * Redis's I/O thread, in a request context of its own: the caller's does not cross threads), and the
     * stage completes with the method's own, or with the rejection.
     */
    private static CompletableFuture<Object> proceedWhenAdmitted(InvocationContext ctx, CompletableFuture<Admission> admitted,
                                                                 RequestContextController requestContext, List<Rule> rules) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        admitted.whenCompleteAsync((admission, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
                return;
            }
            try {
                admission.orThrow();
            } catch (RuntimeException rejected) {
                result.completeExceptionally(rejected);
                return;
            }
            boolean activated = requestContext.activate();
            CallEnding ending = new CallEnding(admission, rules);
            Runnable leaveChain = CallChain.enter(rules);
            Runnable leaveSettlement = ending.enter();
            try {
                if (ctx.proceed() instanceof CompletionStage<?> stage) {
                    stage.whenComplete((value, error) -> ending.end(error).whenComplete((x, y) -> {
                        if (error != null) result.completeExceptionally(error);
                        else result.complete(value);
                    }));
                } else {
                    ending.end(null).whenComplete((x, y) -> result.complete(null));
                }
            } catch (Exception | Error e) {
                ending.end(e).whenComplete((x, y) -> result.completeExceptionally(e));
            } finally {
                leaveSettlement.run();
                leaveChain.run();
                if (activated) requestContext.deactivate();
            }
        });
        return result;
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

    /** The caller's role outside an HTTP request, from Jakarta Security when the application has it. */
    private boolean callerInRole(String role) {
        return SECURITY_PRESENT && CallerRoles.inRole(beanManager, role);
    }

    private io.sluice.key.RequestView httpRequest() {
        return SERVLET_PRESENT ? HttpRequests.current(beanManager) : null;
    }

    private static Class<?> targetClass(InvocationContext ctx) {
        Object target = ctx.getTarget();
        return target != null ? target.getClass() : ctx.getMethod().getDeclaringClass();
    }


    record MethodKey(Class<?> target, Method method) {
    }

    /** What the interceptor does for one method of one bean class. Thread-safe. */
    static final class LimitedMethod {
        final List<String> ruleNames;
        final int keyIndex;
        /** The {@link LimitPlan} parameter, or -1. */
        final int planIndex;
        /** The {@link LimitCost} parameter, or -1. */
        final int costIndex;
        final boolean async;
        /** The method may be handed a stage of the interceptor's own ({@link CompletableFuture} fits its return type). */
        final boolean nonBlocking;
        /** Where the annotation stands, for messages. */
        final String where;
        private volatile Resolved resolved;
        /** The engine told that this method needs its rules (a reload must keep them). */
        private volatile Sluice registered;

        private record Resolved(RuleSet set, List<Rule> rules) {
        }

        private LimitedMethod(String where, List<String> ruleNames, int keyIndex, int planIndex, int costIndex, Class<?> returnType) {
            this.where = where;
            this.ruleNames = ruleNames;
            this.keyIndex = keyIndex;
            this.planIndex = planIndex;
            this.costIndex = costIndex;
            this.async = CompletionStage.class.isAssignableFrom(returnType);
            this.nonBlocking = async && returnType.isAssignableFrom(CompletableFuture.class);
        }

        /** Method-level {@code @Limited} wins over the class's; bindings added by extensions are honoured on Weld. */
        static LimitedMethod of(MethodKey key, InvocationContext ctx) {
            Method m = key.method();
            Limited limited = m.getAnnotation(Limited.class);
            if (limited == null) limited = key.target().getAnnotation(Limited.class);
            if (limited == null) limited = m.getDeclaringClass().getAnnotation(Limited.class);
            if (limited == null) limited = fromContext(ctx);
            String[] names = limited == null ? new String[0] : limited.value();
            int keyIndex = -1;
            int planIndex = -1;
            int costIndex = -1;
            Annotation[][] params = m.getParameterAnnotations();
            for (int i = 0; i < params.length; i++) {
                for (Annotation a : params[i]) {
                    if (a.annotationType() == LimitKey.class && keyIndex < 0) keyIndex = i;
                    if (a.annotationType() == LimitPlan.class && planIndex < 0) planIndex = i;
                    if (a.annotationType() == LimitCost.class && costIndex < 0) costIndex = i;
                }
            }
            return new LimitedMethod(m.getDeclaringClass().getName() + "." + m.getName(), Arrays.stream(names).distinct().sorted().toList(),
                    keyIndex, planIndex, costIndex, m.getReturnType());
        }

        /**
         * The call's {@link LimitCost} argument (deployment has checked it is an int or long). Below 1 it is a
         * programming error, thrown before any rule counts the call.
         */
        long cost(InvocationContext ctx) {
            Object arg = ctx.getParameters()[costIndex];
            long cost = arg instanceof Number n ? n.longValue() : 0;
            if (arg == null || cost < 1) {
                throw new IllegalArgumentException("@LimitCost parameter " + (costIndex + 1) + " of " + where + " is " + arg
                        + ": expected the permits the call takes, at least 1");
            }
            return cost;
        }

        /** Bindings added by an extension or InterceptionFactory are not on the class: Weld lists them in the context data. */
        private static Limited fromContext(InvocationContext ctx) {
            if (ctx.getContextData().get("org.jboss.weld.interceptor.bindings") instanceof Iterable<?> bindings) {
                for (Object b : bindings) if (b instanceof Limited l) return l;
            }
            return null;
        }

        /**
         * Tells the engine, once, that this method needs its rules. The extension registers every {@code @Limited} at
         * deployment already; this covers CDI Lite containers (Quarkus), whose extension runs at build time.
         */
        void requiredBy(Sluice s) {
            if (registered == s) return;
            s.requireRules("@Limited on " + where, ruleNames);
            registered = s;
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
}
