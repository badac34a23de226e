package io.sluice.examples.appserver;

import io.sluice.cdi.LimitKey;
import io.sluice.cdi.Limited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicLong;

/** Creates posts: at most 5 per user per hour (rule {@code posts}), whoever calls it. */
@ApplicationScoped
public class PostService {
    private final AtomicLong posts = new AtomicLong();

    /** Creates a post by {@code user}; its id. */
    @Limited("posts")
    public long create(@LimitKey String user) {
        return posts.incrementAndGet();
    }

    public long count() {
        return posts.get();
    }
}
