package io.sluice.examples.war;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/** {@code POST /api/posts} creates a post (limited per user); {@code GET /api/posts} counts them (not limited). */
public class PostsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final AtomicLong posts = new AtomicLong();

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long id = create(req.getHeader("X-User"));
        resp.setStatus(HttpServletResponse.SC_CREATED);
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().write("post " + id + " created\n");
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().write(count() + " posts\n");
    }

    /** Creates a post by {@code user} (null if anonymous); its id. */
    protected long create(String user) {
        return posts.incrementAndGet();
    }

    /** How many posts there are. */
    protected long count() {
        return posts.get();
    }
}
