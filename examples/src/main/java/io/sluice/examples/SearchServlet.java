package io.sluice.examples;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * {@code GET /api/search?q=...}: a demo search that finds nothing. The filter has already counted it against the
 * client address's {@code search} limit (soft: 10 a minute, up to 12 let through) when this runs.
 */
final class SearchServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String query = request.getParameter("q");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write("{\"query\":\"" + PostsServlet.json(query == null ? "" : query) + "\",\"results\":[]}");
    }
}
