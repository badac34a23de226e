package io.sluice.examples.quarkus;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.util.concurrent.CompletionStage;

/**
 * {@code POST /posts} (header {@code X-User}, the text as body) and {@code GET /images?prompt=...} over the {@code @Limited}
 * services; a rejection is answered by Sluice's {@code LimitExceededMapper}: 429 with every header.
 * {@code GET /images/state} and {@code POST /images/finish} show and end the generations in flight.
 */
@Path("/")
public class ExampleResource {
    @Inject
    PostService posts;
    @Inject
    ImageService images;

    /** Publishes the request body as a post by the {@code X-User}; 201 with where it lives. */
    @POST
    @Path("posts")
    public Response publish(@HeaderParam("X-User") String author, String text) {
        PostService.Post post = posts.publish(author, text);
        return Response.created(URI.create("/posts/" + post.id())).build();
    }

    @GET
    @Path("images")
    @Produces(MediaType.TEXT_PLAIN)
    public CompletionStage<String> image(@QueryParam("prompt") String prompt) {
        return images.generate(prompt);
    }

    @GET
    @Path("images/state")
    @Produces(MediaType.APPLICATION_JSON)
    public String state() {
        return "{\"inFlight\":" + images.inFlight() + ",\"peak\":" + images.peak() + "}";
    }

    @POST
    @Path("images/finish")
    public void finish() {
        images.finishAll();
    }
}
