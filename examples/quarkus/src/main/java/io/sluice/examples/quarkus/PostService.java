package io.sluice.examples.quarkus;

import io.sluice.cdi.LimitKey;
import io.sluice.cdi.Limited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps posts: at most 5 per user per hour (rule {@code posts}, keyed by the author). */
@ApplicationScoped
public class PostService {
    /** A post as stored. */
    public record Post(int id, String author, String text) {
    }

    private final List<Post> posts = new CopyOnWriteArrayList<>();

    @Limited("posts")
    public synchronized Post publish(@LimitKey String author, String text) {
        Post post = new Post(posts.size() + 1, author, text);
        posts.add(post);
        return post;
    }
}
