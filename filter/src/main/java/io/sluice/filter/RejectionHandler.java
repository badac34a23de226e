package io.sluice.filter;

import io.sluice.Decision;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * Writes the response to a request that a rule rejects, in place of Sluice's RFC 9457 problem body: an HTML page
 * for browsers, your own JSON error format, a redirect to an upgrade page.
 *
 * <p>When it is called, the response's buffer has been reset, its status is the rule's {@code status}, and
 * {@code Retry-After} and the rate-limit headers of {@code sluice.headers} are set. Whatever the handler leaves
 * alone stays: it may change the status, replace or add headers ({@code setHeader}) and write any body. After it
 * returns, the filter flushes the response; the request goes no further down the chain either way.
 *
 * <p>The {@link Decision} says which rule rejected and why: {@link Decision#ruleName()}, {@link Decision#limit()}
 * (the limit of the request's plan), {@link Decision#remaining()}, {@link Decision#retryAfterSeconds()},
 * {@code rejection.rule().status()} and {@code rejection.rule().problemType()}. It carries no key value.
 *
 * <p>Register one with {@link SluiceFilter#SluiceFilter(io.sluice.Sluice, RejectionHandler)} or
 * {@link SluiceFilter#setRejectionHandler}, by naming its class in the filter's init-param
 * {@code rejection-handler} (instantiated once, at {@code init}, through its public no-argument constructor), or in
 * the servlet context attribute {@link SluiceFilter#REJECTION_HANDLER_ATTRIBUTE}. A handler that throws a
 * {@link RuntimeException} is logged, and the default problem body is written instead while the response is not
 * committed yet.
 *
 * <p>Called on the rejected request's thread, concurrently for different requests: implementations must be
 * thread-safe.
 */
@FunctionalInterface
public interface RejectionHandler {
    /**
     * Writes the rejection.
     *
     * @param rejection the decision that rejected the request
     * @param request   the rejected request
     * @param response  its response: status, {@code Retry-After} and rate-limit headers already set
     * @throws IOException when the response cannot be written
     */
    void reject(Decision rejection, HttpServletRequest request, HttpServletResponse response) throws IOException;

    /**
     * Sluice's default: the {@code application/problem+json} body of the contract (its {@code type} from
     * {@code problem-type}). For handlers that answer some requests themselves and leave the others to it.
     *
     * @return the default handler
     */
    static RejectionHandler problemJson() {
        return ResponseWriter.PROBLEM_JSON;
    }
}
