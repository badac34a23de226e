package io.sluice.examples.quarkus;

import io.sluice.cdi.LimitKey;
import io.sluice.cdi.Limited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicLong;

/** Creates posts: at most 5 per user per hour (rule {@code posts}). */
@ApplicationScoped
public class PostService {
    private final AtomicLong posts = new AtomicLong();

    @Limited("posts")
    public long create(@LimitKey String user) {
        return posts.incrementAndGet();
    }
}
