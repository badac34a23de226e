package io.sluice.filter;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.http.LimitResponse;
import io.sluice.internal.Log;
import io.sluice.rule.HeaderStyle;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Writes the verdict into the response: rate-limit headers on every response a rule matched, and for a
 * rejection the status, {@code Retry-After} and the body of the {@link RejectionHandler} (by default an RFC 9457
 * problem body that names only the rule), all as {@link LimitResponse} formats them.
 */
final class ResponseWriter {
    private static final Log LOG = Log.of(ResponseWriter.class);
    /** The contract's problem+json body. */
    static final RejectionHandler PROBLEM_JSON = ResponseWriter::problemBody;

    private final HeaderStyle style;

    ResponseWriter(HeaderStyle style) {
        this.style = style;
    }

    void headers(Admission admission, HttpServletResponse response) {
        LimitResponse.headers(admission, style).forEach(response::setHeader);
    }

    /** The rate-limit headers of {@code headline}, the decision to advertise (none when empty). */
    void headers(Optional<Decision> headline, HttpServletResponse response) {
        headline.ifPresent(d -> LimitResponse.headers(d, style).forEach(response::setHeader));
    }

    void reject(Admission admission, HttpServletRequest request, HttpServletResponse response, RejectionHandler handler)
            throws IOException {
        Decision d = admission.rejection().orElseThrow();
        prepare(d, response);
        try {
            handler.reject(d, request, response);
        } catch (RuntimeException e) {
            if (handler == PROBLEM_JSON) throw e;
            LOG.error("The rejection handler " + handler.getClass().getName() + " failed; "
                    + (response.isCommitted() ? "the response was committed already" : "answering with the problem body"), e);
            if (response.isCommitted()) return;
            response.reset(); // also forgets whether the handler took the writer or the stream
            prepare(d, response);
            problemBody(d, request, response);
        }
        response.flushBuffer();
    }

    /** What every rejection starts from: a reset buffer, the rule's status, {@code Retry-After} and the rate headers. */
    private void prepare(Decision d, HttpServletResponse response) {
        response.resetBuffer();
        response.setStatus(d.rule().status());
        LimitResponse.rejectionHeaders(d, style).forEach(response::setHeader);
    }

    private static void problemBody(Decision d, HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = LimitResponse.problem(d).getBytes(StandardCharsets.UTF_8);
        response.setContentType(LimitResponse.PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
