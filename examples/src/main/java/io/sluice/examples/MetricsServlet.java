package io.sluice.examples;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/** {@code GET /metrics}: the app's meters, Sluice's among them, in Prometheus text format for a scraper. */
final class MetricsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** The Prometheus text exposition format. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final transient PrometheusMeterRegistry registry;

    MetricsServlet(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType(CONTENT_TYPE);
        response.getWriter().write(registry.scrape());
    }
}
