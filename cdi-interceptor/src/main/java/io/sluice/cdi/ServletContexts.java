package io.sluice.cdi;

import io.sluice.Sluice;
import io.sluice.servlet.ApplicationSluice;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.servlet.ServletContext;

import java.util.function.Supplier;

/**
 * The web application's one engine, shared with the servlet filter through the servlet context, when the
 * container offers {@link ServletContext} as a bean (Jakarta EE servers and Weld Servlet do). Loaded only
 * when the servlet API is present.
 */
final class ServletContexts {
    /** The application's engine and the context it is published in. */
    record Published(ServletContext context, ApplicationSluice.Shared shared) {
    }

    private ServletContexts() {
    }

    /** The engine published in the application's servlet context, or else {@code build}'s, published; null without a context. */
    static Published obtain(BeanManager bm, Supplier<Sluice> build) {
        ServletContext context;
        try {
            Bean<?> bean = bm.resolve(bm.getBeans(ServletContext.class));
            if (bean == null) return null;
            context = (ServletContext) bm.getReference(bean, ServletContext.class, bm.createCreationalContext(bean));
            context.getContextPath(); // a proxy with no context behind it throws here
        } catch (RuntimeException e) {
            return null;
        }
        return new Published(context, ApplicationSluice.obtain(context, build));
    }

    static void release(Published published) {
        ApplicationSluice.release(published.context(), published.shared());
    }
}
