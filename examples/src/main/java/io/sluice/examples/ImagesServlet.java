package io.sluice.examples;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /api/images}: a slow "image generation", done asynchronously. The request thread returns at
 * once; the response is written and the request completed later on a scheduler. The {@code images}
 * concurrency permit stays taken until then: the filter returns it when the async request completes.
 */
final class ImagesServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient ScheduledExecutorService scheduler;
    private final Duration delay;

    ImagesServlet(ScheduledExecutorService scheduler, Duration delay) {
        this.scheduler = scheduler;
        this.delay = delay;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) {
        AsyncContext async = request.startAsync();
        async.setTimeout(delay.plusSeconds(30).toMillis());
        scheduler.schedule(() -> {
            try {
                HttpServletResponse res = (HttpServletResponse) async.getResponse();
                res.setStatus(HttpServletResponse.SC_OK);
                res.setContentType("application/json");
                res.setCharacterEncoding("UTF-8");
                res.getWriter().write("{\"image\":\"generated\"}");
            } catch (IOException | RuntimeException e) {
                // The client went away or the request timed out: nothing left to answer.
            } finally {
                try {
                    async.complete();
                } catch (IllegalStateException alreadyDone) {
                    // Completed by a time-out or an error in the meantime.
                }
            }
        }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }
}
