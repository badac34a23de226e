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
        long id = posts.incrementAndGet();
        resp.setStatus(HttpServletResponse.SC_CREATED);
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().write("post " + id + " created\n");
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().write(posts.get() + " posts\n");
    }
}
