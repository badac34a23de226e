package io.sluice.spring;

import io.sluice.Admission;
import io.sluice.Ending;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.key.RequestView;
import io.sluice.rule.Rule;
import io.sluice.servlet.AppliedRules;
import io.sluice.servlet.CallAudience;
import io.sluice.servlet.CallChain;
import io.sluice.servlet.CallPlanSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Applies the rules of {@link Limited} to a call of a Spring bean, as the CDI interceptor does: admits it or throws
 * {@link io.sluice.LimitExceededException} before the method runs, and returns concurrency permits exactly once when
 * the method returns or throws, or when its {@link CompletionStage} completes; a rule's {@code count} hears a return as a
 * success and a throw or a failed stage as a failure. A rule the filter applied to the
 * request this thread serves, or an outer {@code @Limited} call on this thread was admitted by, is not counted again.
 * Thread-safe.
 */
final class LimitedInterceptor implements MethodInterceptor {
    /** Whether a call may be serving an HTTP request: Spring's request holder and the servlet API are both there. */
    private static final boolean WEB_PRESENT = ClassUtils.isPresent(
            "org.springframework.web.context.request.RequestContextHolder", LimitedInterceptor.class.getClassLoader())
            && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LimitedInterceptor.class.getClassLoader());

    private final ObjectProvider<Sluice> sluices;
    private final Map<MethodKey, LimitedMethod> methods = new ConcurrentHashMap<>();

    LimitedInterceptor(ObjectProvider<Sluice> sluices) {
        this.sluices = sluices;
    }

    private record MethodKey(Class<?> target, Method method) {
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object bean = invocation.getThis();
        Class<?> target = bean != null ? AopUtils.getTargetClass(bean) : invocation.getMethod().getDeclaringClass();
        LimitedMethod method = methods.computeIfAbsent(new MethodKey(target, invocation.getMethod()),
                k -> LimitedMethod.of(k.target(), k.method()));
        if (method.ruleNames.isEmpty()) return invocation.proceed();

        Sluice sluice = sluices.getObject();
        List<Rule> rules = notAppliedByFilter(method.rules(sluice.rules()));
        rules = CallChain.notHeld(rules);
        if (rules.isEmpty()) return invocation.proceed();
        Object[] args = invocation.getArguments();
        RequestView request = currentRequest();
        KeySource fromRequest = sluice.keysOf(request);
        KeySource keys = method.keyIndex >= 0 ? KeySource.fixed(text(args[method.keyIndex])) : fromRequest;
        keys = CallPlanSource.of(keys, method.keyIndex < 0, method.planIndex >= 0,
                method.planIndex >= 0 ? args[method.planIndex] : null, rules, () -> fromRequest);
        // A @LimitKey call is still made by someone: the request says whether each rule applies to them (when, exempt).
        keys = CallAudience.of(keys, method.keyIndex < 0, rules, () -> fromRequest);
        if (method.costIndex >= 0) keys = keys.withCost(method.cost(args));
        Admission admission = sluice.admit(rules, keys).toCompletableFuture().join().orThrow();

        Object result;
        Runnable leaveChain = CallChain.enter(rules);
        try {
            result = invocation.proceed();
        } catch (Throwable e) {
            end(admission, Ending.failure());
            throw e;
        } finally {
            leaveChain.run();
        }
        if (method.async && result instanceof CompletionStage<?> stage) {
            stage.whenComplete((v, e) -> end(admission, e == null ? Ending.success() : Ending.failure()));
        } else {
            end(admission, Ending.success());
        }
        return result;
    }

    /**
     * Tells the admission how the call ended (a rule's {@code count}: a throw or a failed stage is a failure), waits
     * until what it gives back is in the backend (bounded by the backend's deadline), so that the next call is decided
     * on it, then returns the call's concurrency permits.
     */
    private static void end(Admission admission, Ending ending) {
        try {
            admission.end(ending).toCompletableFuture().join();
        } catch (RuntimeException e) {
            // A failed hand-back leaves the permits counted: the safe side.
        } finally {
            admission.close();
        }
    }

    /** {@code rules} without those the servlet filter applied to the request this thread serves. */
    private static List<Rule> notAppliedByFilter(List<Rule> rules) {
        Set<String> applied = AppliedRules.current();
        return applied.isEmpty() ? rules : rules.stream().filter(r -> !applied.contains(r.name())).toList();
    }

    /** The HTTP request this thread serves, as key resolution sees it; a view of nothing outside a request. */
    private static RequestView currentRequest() {
        RequestView request = WEB_PRESENT ? CurrentRequest.view() : null;
        return request != null ? request : NoRequest.VIEW;
    }

    private static String text(Object arg) {
        return arg == null ? null : arg.toString();
    }

    /** A call outside an HTTP request: no address, no user, nothing to read. */
    private enum NoRequest implements RequestView {
        VIEW;

        @Override
        public String remoteAddress() {
            return null;
        }

        @Override
        public List<String> headers(String name) {
            return List.of();
        }

        @Override
        public String queryString() {
            return null;
        }

        @Override
        public String cookie(String name) {
            return null;
        }

        @Override
        public String userName() {
            return null;
        }

        @Override
        public String sessionId() {
            return null;
        }
    }
}
