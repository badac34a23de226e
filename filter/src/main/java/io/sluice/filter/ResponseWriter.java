package io.sluice.filter;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.http.LimitResponse;
import io.sluice.rule.HeaderStyle;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes the verdict into the response: rate-limit headers on every response a rule matched, and for a
 * rejection the status, {@code Retry-After} and an RFC 9457 problem body that names only the rule, all as
 * {@link LimitResponse} formats them.
 */
final class ResponseWriter {
    private final HeaderStyle style;

    ResponseWriter(HeaderStyle style) {
        this.style = style;
    }

    void headers(Admission admission, HttpServletResponse response) {
        LimitResponse.headers(admission, style).forEach(response::setHeader);
    }

    void reject(Admission admission, HttpServletResponse response) throws IOException {
        Decision d = admission.rejection().orElseThrow();
        response.resetBuffer();
        response.setStatus(d.rule().status());
        LimitResponse.rejectionHeaders(d, style).forEach(response::setHeader);
        byte[] body = LimitResponse.problem(d).getBytes(StandardCharsets.UTF_8);
        response.setContentType(LimitResponse.PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
