package io.sluice.cdi;

import io.sluice.key.RequestView;
import io.sluice.rule.Rule;
import io.sluice.servlet.AppliedRules;
import io.sluice.servlet.ServletRequestView;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.servlet.http.HttpServletRequest;

import java.util.List;
import java.util.Set;

/**
 * The current HTTP request, when the container offers {@link HttpServletRequest} as a bean (Weld does in
 * servlet environments) and a request is active. Loaded only when the servlet API is present.
 */
final class HttpRequests {
    private HttpRequests() {
    }

    /** The current request as key resolution sees it, or null when there is none. */
    static RequestView current(BeanManager bm) {
        HttpServletRequest request = request(bm);
        return request == null ? null : new ServletRequestView(request);
    }

    /** {@code rules} without those the servlet filter applied to the request this thread serves. */
    static List<Rule> notAppliedByFilter(List<Rule> rules) {
        Set<String> applied = AppliedRules.current();
        return applied.isEmpty() ? rules : rules.stream().filter(r -> !applied.contains(r.name())).toList();
    }

    private static HttpServletRequest request(BeanManager bm) {
        try {
            Bean<?> bean = bm.resolve(bm.getBeans(HttpServletRequest.class));
            if (bean == null) return null;
            HttpServletRequest request = (HttpServletRequest) bm.getReference(bean, HttpServletRequest.class,
                    bm.createCreationalContext(bean));
            request.getMethod(); // a proxy outside a request throws here
            return request;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
