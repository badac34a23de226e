package io.sluice.spring;

import io.sluice.Decision;
import io.sluice.LimitExceededException;
import io.sluice.http.LimitResponse;
import io.sluice.rule.Rule;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

import java.net.URI;
import java.util.List;

/**
 * Answers a {@link LimitExceededException} thrown under a Spring MVC controller exactly as the servlet filter answers
 * a rejection: the rule's status, {@code Retry-After}, the rate-limit headers of the application's
 * {@code sluice.headers} style, and a {@link ProblemDetail} with the filter body's members ({@code type},
 * {@code title}, {@code status}, {@code detail}, {@code violated-policies}), all as {@link LimitResponse} formats
 * them. Spring MVC would add the request path as {@code instance}; like the filter's, this body names only the rule
 * (a path may hold a user's name or key), so the handler takes it out again as the body is written.
 *
 * <p>Ordered just before advice of the default order, so an application's catch-all {@code @ExceptionHandler}
 * does not turn a rejection into a 500; advice ordered higher, or a bean of this type, replaces it. Stateless and
 * thread-safe.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE - LimitExceededHandler.BEFORE_DEFAULT_ADVICE)
public class LimitExceededHandler implements ResponseBodyAdvice<Object> {
    /** How far ahead of advice of the default order this one is asked. */
    static final int BEFORE_DEFAULT_ADVICE = 100;
    private static final int TOO_MANY_REQUESTS = 429;

    /** For the auto-configuration, or an application that registers it itself. */
    public LimitExceededHandler() {
    }

    /**
     * The rejection's response.
     *
     * @param e the rejection
     * @return the status, headers and problem body
     */
    @ExceptionHandler(LimitExceededException.class)
    public ResponseEntity<ProblemDetail> limitExceeded(LimitExceededException e) {
        Decision d = e.decision().orElse(null);
        HttpHeaders headers = new HttpHeaders();
        ProblemDetail problem;
        if (d != null) {
            int status = d.rule().status();
            LimitResponse.rejectionHeaders(d, e.headerStyle()).forEach(headers::set);
            problem = problem(d.rule().problemType(), status, LimitResponse.detail(d), d.ruleName());
        } else {
            // Built by hand or deserialized: only the rule and the retry time are known.
            long retryAfter = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
            problem = problem(Rule.DEFAULT_PROBLEM_TYPE, TOO_MANY_REQUESTS,
                    LimitResponse.retryDetail(retryAfter), e.rule());
        }
        return ResponseEntity.status(problem.getStatus()).headers(headers).body(problem);
    }

    /** Only this handler's own answers. */
    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return returnType.getContainingClass() == LimitExceededHandler.class;
    }

    @Override
    public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType contentType,
                                  Class<? extends HttpMessageConverter<?>> converterType, ServerHttpRequest request,
                                  ServerHttpResponse response) {
        if (body instanceof ProblemDetail problem) problem.setInstance(null);
        return body;
    }

    private static ProblemDetail problem(String type, int status, String detail, String rule) {
        ProblemDetail problem = ProblemDetail.forStatus(status);
        problem.setType(URI.create(type));
        problem.setTitle(LimitResponse.title(status));
        problem.setDetail(detail);
        problem.setProperty(LimitResponse.VIOLATED_POLICIES, List.of(rule));
        return problem;
    }
}
