package io.sluice.examples.appserver;

import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * {@code POST /api/posts}: the filter applies rule {@code posts}, then {@link PostService} (also
 * {@code @Limited("posts")}) creates the post; the request is counted once. {@code GET} counts the posts.
 */
public class PostsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Inject
    transient PostService posts;

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long id = posts.create(req.getHeader("X-User"));
        resp.setStatus(HttpServletResponse.SC_CREATED);
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().write("post " + id + " created\n");
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().write(posts.count() + " posts\n");
    }
}
