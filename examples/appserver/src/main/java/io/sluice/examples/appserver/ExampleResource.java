package io.sluice.examples.appserver;

import io.sluice.Sluice;
import io.sluice.examples.war.Workload;
import io.sluice.servlet.ApplicationSluice;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.servlet.ServletContext;
import jakarta.transaction.UserTransaction;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Jakarta REST over the {@code @Limited} beans; a rejection becomes the filter's own 429 through
 * {@link io.sluice.jaxrs.LimitExceededMapper}:
 * <ul>
 *   <li>{@code POST /rest/posts} (header {@code X-User}): {@link PostService}, rule {@code posts}.</li>
 *   <li>{@code GET /rest/generations/sync?seconds=N} and {@code /async}: {@link GenerationService}.</li>
 *   <li>{@code POST /rest/transfers/in-transaction} (header {@code X-User}): calls
 *       {@link TransferService#outsideTransactions} inside a transaction; answers which interceptor stopped it.</li>
 *   <li>{@code GET /rest/engine}: whether the filter and CDI use one engine.</li>
 * </ul>
 */
@Path("/")
@RequestScoped
public class ExampleResource {
    @Inject
    PostService posts;
    @Inject
    GenerationService generations;
    @Inject
    TransferService transfers;
    @Inject
    UserTransaction transaction;
    @Inject
    Sluice sluice;
    @Inject
    ServletContext context;

    @POST
    @Path("posts")
    @Produces(MediaType.TEXT_PLAIN)
    public Response post(@HeaderParam("X-User") String user) {
        return Response.status(Response.Status.CREATED).entity("post " + posts.create(user) + " created\n").build();
    }

    @GET
    @Path("generations/sync")
    @Produces(MediaType.TEXT_PLAIN)
    public String generate(@QueryParam("seconds") int seconds) throws Exception {
        return generations.generate(hold(seconds));
    }

    @GET
    @Path("generations/async")
    @Produces(MediaType.TEXT_PLAIN)
    public CompletionStage<String> generateLater(@QueryParam("seconds") int seconds) {
        return generations.generateLater(hold(seconds));
    }

    /** Begins a transaction, calls a method that refuses transactions, rolls back; names what was thrown. */
    @POST
    @Path("transfers/in-transaction")
    @Produces(MediaType.TEXT_PLAIN)
    public String transferInTransaction(@HeaderParam("X-User") String user) throws Exception {
        transaction.begin();
        try {
            return transfers.outsideTransactions(user);
        } catch (RuntimeException e) {
            return e.getClass().getName();
        } finally {
            transaction.rollback();
        }
    }

    /** Called in no transaction: the transactional method runs (or the limit rejects it, answered 429). */
    @POST
    @Path("transfers")
    @Produces(MediaType.TEXT_PLAIN)
    public String transfer(@HeaderParam("X-User") String user) {
        return transfers.inTransaction(user);
    }

    @GET
    @Path("engine")
    @Produces(MediaType.APPLICATION_JSON)
    public String engine() {
        Object published = context.getAttribute(ApplicationSluice.CONTEXT_ATTRIBUTE);
        return "{\"published\":" + (published != null) + ",\"sameEngine\":" + (published == sluice) + "}";
    }

    private static Duration hold(int seconds) {
        Duration hold = Duration.ofSeconds(seconds);
        return hold.isNegative() || hold.compareTo(Workload.MAX_HOLD) > 0 ? Workload.MAX_HOLD : hold;
    }
}
