package io.sluice.examples.war;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.time.Duration;

/**
 * {@code GET /reports/async?seconds=N}: the same slow report without holding a request thread. The request
 * goes async and completes when the report is done; the filter keeps its permit until then.
 */
public class AsyncReportServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Duration hold = ReportServlet.holdTime(req, resp);
        if (hold == null) return;
        Workload workload = Workload.of(getServletContext());
        AsyncContext async = req.startAsync();
        async.setTimeout(hold.toMillis() + 30_000);
        workload.start(hold).whenComplete((done, failure) -> {
            workload.finish();
            try {
                HttpServletResponse response = (HttpServletResponse) async.getResponse();
                response.setContentType("text/plain;charset=UTF-8");
                response.getWriter().write("report ready\n");
            } catch (IOException | IllegalStateException e) {
                // The client left or the request timed out; completing below still ends the request.
            } finally {
                async.complete();
            }
        });
    }
}
