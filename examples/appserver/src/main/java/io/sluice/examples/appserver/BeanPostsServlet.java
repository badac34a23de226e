package io.sluice.examples.appserver;

import io.sluice.examples.war.PostsServlet;
import jakarta.inject.Inject;

/**
 * The example WAR's {@code POST /api/posts}, through a bean: the filter applies rule {@code posts}, then {@link PostService} (also
 * {@code @Limited("posts")}) creates the post; the request is counted once. {@code GET} counts the posts.
 */
public class BeanPostsServlet extends PostsServlet {
    private static final long serialVersionUID = 1L;

    @Inject
    transient PostService posts;

    @Override
    protected long create(String user) {
        return posts.create(user);
    }

    @Override
    protected long count() {
        return posts.count();
    }
}
