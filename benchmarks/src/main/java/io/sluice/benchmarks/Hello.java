package io.sluice.benchmarks;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The trivial protected resource of the HTTP benchmarks: five bytes of text. Deployed in the embedded servers
 * and, as a class in {@code WEB-INF/classes}, in the wrk benchmark's WARs. Thread-safe.
 */
public final class Hello extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final byte[] BODY = "hello".getBytes(StandardCharsets.US_ASCII);

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain");
        resp.setContentLength(BODY.length);
        resp.getOutputStream().write(BODY);
    }
}
