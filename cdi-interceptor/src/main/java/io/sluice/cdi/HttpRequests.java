package io.sluice.cdi;

import io.sluice.key.RequestView;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;

import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The current HTTP request, when the container offers {@link HttpServletRequest} as a bean (Weld does in
 * servlet environments) and a request is active. Loaded only when the servlet API is present.
 */
final class HttpRequests {
    private HttpRequests() {
    }

    /** The current request as key resolution sees it, or null when there is none. */
    static RequestView current(BeanManager bm) {
        try {
            Bean<?> bean = bm.resolve(bm.getBeans(HttpServletRequest.class));
            if (bean == null) return null;
            HttpServletRequest request = (HttpServletRequest) bm.getReference(bean, HttpServletRequest.class,
                    bm.createCreationalContext(bean));
            request.getMethod(); // a proxy outside a request throws here
            return new View(request);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Never creates a session, never reads the body. */
    private record View(HttpServletRequest request) implements RequestView {
        @Override
        public String remoteAddress() {
            return request.getRemoteAddr();
        }

        @Override
        public List<String> headers(String name) {
            Enumeration<String> values = request.getHeaders(name);
            return values == null ? List.of() : Collections.list(values);
        }

        @Override
        public String header(String name) {
            return request.getHeader(name);
        }

        @Override
        public String queryString() {
            return request.getQueryString();
        }

        @Override
        public String cookie(String name) {
            Cookie[] cookies = request.getCookies();
            if (cookies == null) return null;
            for (Cookie c : cookies) {
                if (c.getName().equals(name)) return c.getValue();
            }
            return null;
        }

        @Override
        public String userName() {
            Principal p = request.getUserPrincipal();
            return p == null ? null : p.getName();
        }

        @Override
        public String sessionId() {
            HttpSession s = request.getSession(false);
            return s == null ? null : s.getId();
        }
    }
}
