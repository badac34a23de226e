package io.sluice.jaxrs;

import io.sluice.Decision;
import io.sluice.LimitExceededException;
import io.sluice.http.LimitResponse;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Answers a {@link LimitExceededException} thrown by a {@code @Limited} bean under a Jakarta REST resource
 * exactly as the servlet filter answers a rejection: the rule's status, {@code Retry-After}, the rate-limit
 * headers of the application's {@code sluice.headers} style, and the problem+json body naming only the rule.
 *
 * <p>Discovered as a {@link Provider} (classpath scanning on application servers, the Jandex index in
 * Quarkus), or registered by hand in {@code Application.getClasses()}. Stateless and thread-safe.
 */
@Provider
public class LimitExceededMapper implements ExceptionMapper<LimitExceededException> {
    private static final int TOO_MANY_REQUESTS = 429;

    @Override
    public Response toResponse(LimitExceededException e) {
        Decision d = e.decision().orElse(null);
        int status;
        Map<String, String> headers;
        String body;
        if (d != null) {
            status = d.rule().status();
            headers = LimitResponse.rejectionHeaders(d, e.headerStyle());
            body = LimitResponse.problem(d);
        } else {
            // Built by hand or deserialized: only the rule and the retry time are known.
            long retryAfter = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
            status = TOO_MANY_REQUESTS;
            headers = Map.of("Retry-After", Long.toString(retryAfter));
            body = LimitResponse.problem(status, e.rule(), retryAfter);
        }
        Response.ResponseBuilder response = Response.status(status)
                .type(LimitResponse.PROBLEM_JSON + ";charset=UTF-8")
                .entity(body.getBytes(StandardCharsets.UTF_8));
        headers.forEach(response::header);
        return response.build();
    }
}
