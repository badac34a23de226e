package io.sluice.servlet;

import io.sluice.Sluice;
import jakarta.servlet.ServletContext;

import java.util.function.Supplier;

/**
 * One {@link Sluice}, hence one Redis client, per web application, whichever of the servlet filter and the
 * CDI producer asks first: the first builds it and publishes it as the servlet context attribute
 * {@link #CONTEXT_ATTRIBUTE}; the later one uses that engine. The builder owns the engine and closes it
 * (through {@link #release}); the other never does.
 */
public final class ApplicationSluice {
    /** The servlet context attribute holding the application's {@link Sluice}. */
    public static final String CONTEXT_ATTRIBUTE = Sluice.class.getName();

    /** The application's engine, and whether this caller built it (and so must close it). */
    public record Shared(Sluice sluice, boolean owner) {
    }

    private ApplicationSluice() {
    }

    /** The engine published in {@code context}, or else a new one from {@code build}, published there. */
    public static Shared obtain(ServletContext context, Supplier<Sluice> build) {
        // One lock for every application using this copy of the class: contention is limited to start-up.
        synchronized (ApplicationSluice.class) {
            if (context.getAttribute(CONTEXT_ATTRIBUTE) instanceof Sluice published) return new Shared(published, false);
            Sluice built = build.get();
            context.setAttribute(CONTEXT_ATTRIBUTE, built);
            return new Shared(built, true);
        }
    }

    /** Closes an engine this caller owns and withdraws it from {@code context}; does nothing for a borrowed one. */
    public static void release(ServletContext context, Shared shared) {
        if (!shared.owner()) return;
        synchronized (ApplicationSluice.class) {
            if (context.getAttribute(CONTEXT_ATTRIBUTE) == shared.sluice()) context.removeAttribute(CONTEXT_ATTRIBUTE);
        }
        shared.sluice().close();
    }
}
