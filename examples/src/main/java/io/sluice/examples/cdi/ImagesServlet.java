package io.sluice.examples.cdi;

import io.sluice.LimitExceededException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code POST /api/images}: calls {@link ImageService#generate} for the {@code X-User} (a demo login) with the
 * request body as the prompt. A {@link LimitExceededException} becomes a 429 with {@code Retry-After} and an
 * RFC 9457 problem body naming the rule.
 */
final class ImagesServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient ImageService images;

    ImagesServlet(ImageService images) {
        this.images = images;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String user = request.getHeader("X-User");
        if (user != null && user.isBlank()) user = null;
        String prompt = new String(request.getInputStream().readNBytes(4096), StandardCharsets.UTF_8);
        response.setCharacterEncoding("UTF-8");
        try {
            String id = images.generate(user, prompt);
            response.setStatus(HttpServletResponse.SC_OK);
            response.setContentType("application/json");
            response.getWriter().write("{\"image\":\"" + id + "\"}");
        } catch (LimitExceededException e) {
            long seconds = Math.max(1, e.retryAfter().toSeconds());
            response.setStatus(429);
            response.setHeader("Retry-After", Long.toString(seconds));
            response.setContentType("application/problem+json");
            response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                    + "\"detail\":\"Image limit reached. Retry after " + seconds + (seconds == 1 ? " second" : " seconds")
                    + ".\","
                    + "\"violated-policies\":[\"" + e.rule() + "\"]}");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        }
    }
}
