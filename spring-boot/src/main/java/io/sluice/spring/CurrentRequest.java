package io.sluice.spring;

import io.sluice.key.RequestView;
import io.sluice.servlet.ServletRequestView;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The HTTP request the calling thread serves, as Spring MVC holds it. Loaded only when Spring's web module and the
 * servlet API are on the class path: a Spring application without them has no request to read.
 */
final class CurrentRequest {
    private CurrentRequest() {
    }

    /** {@return the request this thread serves as key resolution sees it, or null outside one} */
    static RequestView view() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        return attributes instanceof ServletRequestAttributes servlet ? new ServletRequestView(servlet.getRequest()) : null;
    }
}
