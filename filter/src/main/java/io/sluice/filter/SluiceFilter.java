package io.sluice.filter;

import io.sluice.Admission;
import io.sluice.ConfigException;
import io.sluice.Sluice;
import io.sluice.internal.Log;
import io.sluice.micrometer.Micrometer;
import io.sluice.rule.Rule;
import io.sluice.rule.RulesSource;
import io.sluice.servlet.AppliedRules;
import io.sluice.servlet.ApplicationRules;
import io.sluice.servlet.ApplicationSluice;
import io.sluice.servlet.ServletRequestView;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Applies the rules of a Sluice rules file to HTTP requests, on any Jakarta Servlet 5.0+ container.
 *
 * <p>Declare it in {@code web.xml} (with {@code <async-supported>true</async-supported>}), add it with
 * {@code ServletContext.addFilter}, or construct it around a {@link Sluice} of your own. Init-params:
 * {@code config} (the rules file location) and any {@code sluice.*} property, which overrides the file. Where
 * MicroProfile Config is present, its {@code sluice.*} properties are rules too ({@link ApplicationRules}).
 * Any other init-param, and any problem in the rules, fails {@code init}, so an application never starts
 * unprotected by mistake.
 *
 * <p>Applies once per request, however often the request is forwarded, included or dispatched. It never
 * changes which filters, servlets and listeners run after it, nor the dispatcher type they see: the decision
 * is made on the request's own thread (bounded by {@code sluice.backend-timeout}, plus a concurrency rule's
 * {@code wait}), then the chain goes on as it would without Sluice. A concurrency permit is returned exactly
 * once, when the request really ends: when {@code doFilter} returns or throws, or, for a request the
 * application puts in async mode, when it completes, fails or times out.
 *
 * <p>A rejection is answered with the rule's status, {@code Retry-After}, the rate-limit headers and an RFC 9457
 * problem body, or by a {@link RejectionHandler} of the application's: given to the constructor or
 * {@link #setRejectionHandler}, named by the init-param {@code rejection-handler} (a class with a public
 * no-argument constructor, instantiated once at {@code init}), or found in the servlet context attribute
 * {@link #REJECTION_HANDLER_ATTRIBUTE} at {@code init}, in that order of precedence.
 *
 * <p>Thread-safe. Its {@link Sluice} is published as the servlet context attribute {@link #CONTEXT_ATTRIBUTE}.
 * The application's CDI producer, reading the same rules, uses the same engine whichever starts first
 * ({@link ApplicationSluice}), so an application has one engine and one Redis client. With Micrometer on the
 * class path, its meters go to the {@code MeterRegistry} found in the servlet context attribute
 * {@link #METER_REGISTRY_ATTRIBUTE} when {@code init} runs, else to Micrometer's global registry.
 */
public class SluiceFilter implements Filter {
    /** The servlet context attribute under which the filter publishes its {@link Sluice}. */
    public static final String CONTEXT_ATTRIBUTE = ApplicationSluice.CONTEXT_ATTRIBUTE;
    /**
     * The servlet context attribute where the filter looks for a Micrometer {@code MeterRegistry} to publish its
     * meters in (set it before the filter's {@code init}, e.g. in a {@code ServletContextListener}).
     */
    public static final String METER_REGISTRY_ATTRIBUTE = Micrometer.REGISTRY_CLASS;
    /**
     * The servlet context attribute where the filter looks for a {@link RejectionHandler} at {@code init} when none
     * was given in code or by the init-param {@value #REJECTION_HANDLER_PARAM}.
     */
    public static final String REJECTION_HANDLER_ATTRIBUTE = "io.sluice.filter.RejectionHandler";
    /** The init-param naming a {@link RejectionHandler} class. */
    static final String REJECTION_HANDLER_PARAM = "rejection-handler";
    private static final Log LOG = Log.of(SluiceFilter.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /**
     * The request attribute holding the rules this filter applied to a request: it applies once per request
     * (forwards, includes and error pages see it again), and a second SluiceFilter still applies its own rules.
     */
    private final String applied = SluiceFilter.class.getName() + ".applied." + INSTANCES.incrementAndGet();

    private volatile Sluice sluice;
    /** This filter's share of the engine {@link #init} found or built; null around an engine of the caller's. */
    private volatile ApplicationSluice.Share share;
    private volatile ServletContext context;
    private volatile ResponseWriter writer;
    /** The application's handler given in code; wins over the init-param and the context attribute. */
    private volatile RejectionHandler givenHandler;
    private volatile RejectionHandler rejectionHandler = RejectionHandler.problemJson();

    /** For containers that instantiate the filter; {@link #init} builds the {@link Sluice}. */
    public SluiceFilter() {
    }

    /**
     * Around a {@link Sluice} of your own; the filter does not close it.
     *
     * @param sluice the engine whose rules the filter applies
     */
    public SluiceFilter(Sluice sluice) {
        this.sluice = sluice;
        this.writer = new ResponseWriter(sluice.rules().settings().headers());
    }

    /**
     * Around a {@link Sluice} of your own, answering rejections with your handler; the filter does not close the engine.
     *
     * @param sluice  the engine whose rules the filter applies
     * @param handler writes the response of each rejected request
     */
    public SluiceFilter(Sluice sluice, RejectionHandler handler) {
        this(sluice);
        setRejectionHandler(handler);
    }

    /**
     * Answers rejections with this handler instead of the default problem body (or of a handler named by the
     * init-param or the context attribute). Meant to be called before the filter serves requests.
     *
     * @param handler writes the response of each rejected request
     */
    public void setRejectionHandler(RejectionHandler handler) {
        this.givenHandler = Objects.requireNonNull(handler, "handler");
        this.rejectionHandler = handler;
    }

    @Override
    public void init(FilterConfig config) throws ServletException {
        try {
            rejectionHandler = rejectionHandler(config);
        } catch (ConfigException e) {
            throw new ServletException(e.getMessage(), e);
        }
        if (sluice != null) return;
        try {
            String location = null;
            Map<String, String> overrides = new LinkedHashMap<>();
            List<String> problems = new ArrayList<>();
            for (String name : Collections.list(config.getInitParameterNames())) {
                String value = config.getInitParameter(name);
                if (name.equals("config")) location = value;
                else if (name.startsWith("sluice.")) overrides.put(name, value);
                else if (name.equals(REJECTION_HANDLER_PARAM)) continue; // read by rejectionHandler(config)
                // The value is not shown: a misnamed parameter may well hold a password.
                else problems.add("init-param " + name + " = (value not shown): expected config, " + REJECTION_HANDLER_PARAM
                        + " or a sluice.* property");
            }
            if (!problems.isEmpty()) throw new ConfigException(problems);
            ServletContext context = config.getServletContext();
            ClassLoader loader = context.getClassLoader();
            // Read again by Sluice.reload() and sluice.reload: the same file, the same overrides.
            RulesSource source = ApplicationRules.source(location, overrides, loader);
            // One engine (and Redis client) per application and rules source, shared with the CDI producer.
            ApplicationSluice.Share share = ApplicationSluice.obtain(source,
                    () -> Sluice.builder().source(source).classLoader(loader)
                            .meterRegistry(meterRegistry(context)).build());
            Sluice built = share.sluice();
            this.sluice = built;
            this.share = share;
            this.context = context;
            this.writer = new ResponseWriter(built.rules().settings().headers());
            context.setAttribute(CONTEXT_ATTRIBUTE, built);
            LOG.info("Sluice filter '{}' started with {} rules", config.getFilterName(), built.rules().all().size());
        } catch (ConfigException e) {
            throw new ServletException(e.getMessage(), e);
        }
    }

    /** The handler given in code, else the one the init-param names, else the context attribute's, else the default. */
    private RejectionHandler rejectionHandler(FilterConfig config) {
        if (givenHandler != null) return givenHandler;
        String className = config.getInitParameter(REJECTION_HANDLER_PARAM);
        if (className != null) return instantiate(className.trim(), config.getServletContext().getClassLoader());
        Object attribute = config.getServletContext().getAttribute(REJECTION_HANDLER_ATTRIBUTE);
        if (attribute == null) return RejectionHandler.problemJson();
        if (attribute instanceof RejectionHandler h) return h;
        throw new ConfigException("servlet context attribute " + REJECTION_HANDLER_ATTRIBUTE + " = (a "
                + attribute.getClass().getName() + "): expected an instance of " + RejectionHandler.class.getName());
    }

    /** The init-param's class, instantiated once; every way it can fail is named. */
    private static RejectionHandler instantiate(String className, ClassLoader loader) {
        String expected = ": expected the name of a class implementing " + RejectionHandler.class.getName()
                + " with a public no-argument constructor";
        String problem = "init-param " + REJECTION_HANDLER_PARAM + " = \"" + className + "\"" + expected;
        Class<?> type;
        try {
            type = Class.forName(className, false, loader != null ? loader : SluiceFilter.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(problem + " (no such class)");
        }
        if (!RejectionHandler.class.isAssignableFrom(type)) {
            throw new ConfigException(problem + " (it does not implement " + RejectionHandler.class.getSimpleName() + ")");
        }
        try {
            return (RejectionHandler) type.getConstructor().newInstance();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new ConfigException(problem + " (it has no public no-argument constructor)");
        } catch (InstantiationException e) {
            throw new ConfigException(problem + " (it is abstract)");
        } catch (InvocationTargetException e) {
            throw new ConfigException(problem + " (its constructor threw " + e.getCause().getClass().getName() + ")");
        }
    }

    /** The application's Micrometer registry, when it put one in {@link #METER_REGISTRY_ATTRIBUTE}; else null (global). */
    private static Object meterRegistry(ServletContext context) {
        return context.getAttribute(METER_REGISTRY_ATTRIBUTE);
    }

    /**
     * The engine this filter applies.
     *
     * @return the engine, once {@link #init} has built it (or the one given to the constructor)
     */
    public Sluice sluice() {
        return sluice;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        // Applied already: a forward, an include, an error page or an async dispatch of the same request.
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        if (req.getAttribute(applied) instanceof List<?> earlier) {
            @SuppressWarnings("unchecked")
            List<Rule> appliedRules = (List<Rule>) earlier;
            AppliedRules.during(appliedRules, () -> chain.doFilter(req, res));
            return;
        }
        ServletRequestView view = new ServletRequestView(request);
        List<Rule> rules = sluice.rules().matching(request.getMethod(), view.path());
        // The rules applied to this request: a @Limited bean serving it does not count them again.
        request.setAttribute(applied, rules);
        if (rules.isEmpty()) {
            chain.doFilter(req, res);
            return;
        }
        Admission admission;
        try {
            // Decided on this thread: suspending the request and dispatching it again would turn the rest of it
            // into an ASYNC dispatch, which every REQUEST-only filter after this one (authentication...) skips.
            // Sluice's own deadlines bound the wait: the backend timeout, plus a concurrency rule's wait.
            admission = sluice.admit(rules, sluice.keysOf(view)).toCompletableFuture().join();
        } catch (RuntimeException e) {
            undecided(e);
            AppliedRules.during(rules, () -> chain.doFilter(req, res));
            return;
        }
        if (!admission.allowed()) {
            writer.reject(admission, request, response, rejectionHandler);
            return;
        }
        // Rules that count by outcome or settle from a header see the response through OutcomeResponse, which writes
        // the rate headers as each status the application sets would leave them.
        OutcomeResponse outcome = OutcomeResponse.needed(rules) ? new OutcomeResponse(response, admission, rules, writer) : null;
        if (outcome == null) writer.headers(admission, response);
        RequestEnding ending = new RequestEnding(admission, rules, response, outcome);
        ReleasingRequest wrapped = new ReleasingRequest(request, ending);
        ServletResponse seen = outcome == null ? res : outcome;
        boolean releaseLater = false;
        boolean failed = true;
        try {
            AppliedRules.during(rules, () -> chain.doFilter(wrapped, seen));
            failed = false;
            releaseLater = wrapped.listening() || wrapped.listenIfAsyncStartedElsewhere();
        } finally {
            if (!releaseLater) ending.endAndWait(failed);
        }
    }

    private static void undecided(Throwable e) {
        // Backend failures are decided inside admit(); anything else is a bug, which must not break the request.
        LOG.error("Sluice could not decide a request; letting it through", e);
    }

    @Override
    public void destroy() {
        if (share == null) return;
        if (context.getAttribute(CONTEXT_ATTRIBUTE) == share.sluice()) context.removeAttribute(CONTEXT_ATTRIBUTE);
        share.release();
    }

    /**
     * Hands the admission to the async context the moment the application starts async, so the permit is
     * returned when the request completes, not when {@code doFilter} returns, and never races a completion
     * from another thread.
     */
    private static final class ReleasingRequest extends HttpServletRequestWrapper {
        private final RequestEnding ending;
        private final AtomicBoolean listening = new AtomicBoolean();

        ReleasingRequest(HttpServletRequest request, RequestEnding ending) {
            super(request);
            this.ending = ending;
        }

        @Override
        public AsyncContext startAsync() {
            return listen(super.startAsync());
        }

        @Override
        public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
            return listen(super.startAsync(request, response));
        }

        private AsyncContext listen(AsyncContext context) {
            if (listening.compareAndSet(false, true)) context.addListener(new Release(ending));
            return context;
        }

        boolean listening() {
            return listening.get();
        }

        /** Async started on the unwrapped request (by a filter further down): listen there if still possible. */
        boolean listenIfAsyncStartedElsewhere() {
            try {
                if (!isAsyncStarted()) return false;
                listen(getAsyncContext());
                return true;
            } catch (IllegalStateException e) {
                return false;
            }
        }
    }

    /** Ends the request when its async processing does: completed as its status says, or failed (error, time-out). */
    private static final class Release implements AsyncListener {
        private final RequestEnding ending;

        Release(RequestEnding ending) {
            this.ending = ending;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            ending.end(false);
        }

        @Override
        public void onError(AsyncEvent event) {
            ending.end(true);
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            ending.end(true);
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // Async restarted after a dispatch: keep listening on the new context.
            event.getAsyncContext().addListener(this);
        }
    }
}
