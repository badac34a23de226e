package io.sluice.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The resources behind {@code /outcome/*} for the count and settle tests: a login that answers 401 to a wrong
 * password (by status, by {@code sendError}, or asynchronously), and metered resources that report their actual
 * cost in a response header ({@code X-Report} of the request says what to report; none: no header).
 */
final class OutcomeServlets extends HttpServlet {
    private static final ExecutorService ASYNC = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "outcome-async");
        t.setDaemon(true);
        return t;
    });

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getPathInfo();
        boolean right = "right".equals(req.getHeader("X-Password"));
        switch (path) {
            case "/login" -> {
                if (!right) resp.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
                body(resp, right ? "welcome" : "wrong password");
            }
            case "/login-error" -> {
                if (right) body(resp, "welcome");
                else resp.sendError(HttpServletResponse.SC_UNAUTHORIZED);
            }
            case "/async-login" -> {
                AsyncContext async = req.startAsync(req, resp);
                ASYNC.execute(() -> {
                    HttpServletResponse r = (HttpServletResponse) async.getResponse();
                    if (!right) r.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
                    try {
                        body(r, right ? "welcome" : "wrong password");
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        async.complete();
                    }
                });
            }
            case "/llm", "/rows" -> {
                report(req, resp, path.equals("/llm") ? "X-Tokens-Used" : "X-Rows");
                body(resp, "answer");
            }
            case "/async-llm" -> {
                AsyncContext async = req.startAsync(req, resp);
                ASYNC.execute(() -> {
                    HttpServletResponse r = (HttpServletResponse) async.getResponse();
                    report(req, r, "X-Tokens-Used");
                    try {
                        body(r, "answer");
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        async.complete();
                    }
                });
            }
            default -> resp.sendError(HttpServletResponse.SC_NOT_FOUND);
        }
    }

    private static void report(HttpServletRequest req, HttpServletResponse resp, String header) {
        String report = req.getHeader("X-Report");
        if (report != null) resp.setHeader(header, report);
    }

    private static void body(HttpServletResponse resp, String text) throws IOException {
        resp.setContentType("text/plain");
        resp.getWriter().write(text);
    }
}
