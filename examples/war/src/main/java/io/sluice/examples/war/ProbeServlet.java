package io.sluice.examples.war;

import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.filter.SluiceFilter;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What this server sees, as JSON, for curl and for the container tests:
 * <ul>
 *   <li>{@code GET /probe}: the Servlet version and server; reports in flight, their peak, started and finished;
 *       the free permits of each global concurrency rule, and the engine's decision counts.</li>
 *   <li>{@code POST /probe/release}: ends every report in the making now.</li>
 *   <li>{@code POST /probe/reset}: starts a new peak and new counts.</li>
 * </ul>
 */
public class ProbeServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ServletContext context = getServletContext();
        StringBuilder json = new StringBuilder("{\"servlet\":\"").append(context.getMajorVersion()).append('.')
                .append(context.getMinorVersion()).append("\",\"server\":\"").append(jsonText(context.getServerInfo()))
                .append("\",").append(Workload.of(context).json());
        // The filter publishes its engine; it is there once the filter has started.
        if (context.getAttribute(SluiceFilter.CONTEXT_ATTRIBUTE) instanceof Sluice sluice) {
            json.append(",\"free\":{");
            String separator = "";
            for (Rule rule : sluice.rules().all()) {
                if (!rule.limitsConcurrency() || !rule.key().global()) continue;
                json.append(separator).append('"').append(rule.name()).append("\":").append(freePermits(sluice, rule));
                separator = ",";
            }
            Stats stats = sluice.stats();
            json.append("},\"backendCalls\":").append(stats.backendCalls()).append(",\"failedOpen\":")
                    .append(stats.failedOpen()).append(",\"failedClosed\":").append(stats.failedClosed());
        }
        resp.setContentType("application/json");
        resp.getWriter().write(json.append("}\n").toString());
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Workload workload = Workload.of(getServletContext());
        String action = req.getPathInfo();
        if ("/release".equals(action)) workload.release();
        else if ("/reset".equals(action)) workload.reset();
        else {
            resp.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
    }

    /** Null when Redis cannot tell: the probe reports, it never fails. */
    private static Integer freePermits(Sluice sluice, Rule rule) {
        try {
            // get(timeout), not orTimeout: that would start the JDK's shared delay thread from this application.
            return sluice.availablePermits(rule, KeyResolver.GLOBAL).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String jsonText(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
