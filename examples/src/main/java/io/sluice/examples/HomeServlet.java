package io.sluice.examples;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.time.Duration;

/** {@code GET /}: how to try the example with curl. Any other unmapped path is a 404. */
final class HomeServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        if (!path.equals("/") && !path.isEmpty()) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        String base = request.getScheme() + "://" + request.getServerName() + ":" + request.getServerPort();
        response.setContentType("text/plain");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(String.join("\n",
                "Sluice example: distributed rate and concurrency limits in a servlet filter.",
                "",
                "POST /api/posts   rule 'posts': 10 posts per hour per user, as a token bucket: at most 5 in a row,",
                "                  then one every 6 minutes. A demo login: the X-User header. A post without",
                "                  X-User is rejected.",
                "GET /api/search   rule 'search': 10 searches a minute per client address, soft: up to 20% over",
                "                  (12 a minute) is let through; the headers still say 10.",
                "POST /api/images  rule 'images': at most 3 image generations in flight, for everyone.",
                "                  Each takes a few seconds, asynchronously (no thread is held while it waits).",
                "",
                "Six posts as alice: five 201 (the bucket), then 429:",
                "  for i in $(seq 1 6); do curl -s -o /dev/null -w '%{http_code}\\n' -X POST -H 'X-User: alice' "
                        + base + "/api/posts; done",
                "The rejection, with Retry-After, rate-limit headers and a problem+json body:",
                "  curl -si -X POST -H 'X-User: alice' " + base + "/api/posts",
                "Thirteen searches: twelve 200 (10 and 20% over), then 429:",
                "  for i in $(seq 1 13); do curl -s -o /dev/null -w '%{http_code}\\n' '" + base
                        + "/api/search?q=sluice'; done",
                "Five images at once: three 200, two 429:",
                "  for i in $(seq 1 5); do curl -s -o /dev/null -w '%{http_code}\\n' -X POST " + base
                        + "/api/images & done; wait",
                "Sluice's meters (sluice_requests_total by rule, type and result), in Prometheus text format:",
                "  curl -s " + base + "/metrics | grep sluice_",
                ""));
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
