package io.sluice.examples.war;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@code GET /reports/sync?seconds=N}: a slow report that holds its request thread for N seconds (default 2). */
public class ReportServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Duration hold = holdTime(req, resp);
        if (hold == null) return;
        Workload workload = Workload.of(getServletContext());
        try {
            workload.start(hold).get(hold.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            resp.setContentType("text/plain;charset=UTF-8");
            resp.getWriter().write("report ready\n");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            resp.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        } catch (ExecutionException | TimeoutException e) {
            resp.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
        } finally {
            workload.finish();
        }
    }

    /** The {@code seconds} parameter, 0 to 120; null (and a 400 sent) when it is not. */
    static Duration holdTime(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String seconds = req.getParameter("seconds");
        try {
            Duration hold = Duration.ofSeconds(seconds == null ? 2 : Long.parseLong(seconds));
            if (!hold.isNegative() && hold.compareTo(Workload.MAX_HOLD) <= 0) return hold;
        } catch (NumberFormatException e) {
            // answered below
        }
        resp.sendError(HttpServletResponse.SC_BAD_REQUEST, "seconds: expected a whole number from 0 to 120");
        return null;
    }
}
