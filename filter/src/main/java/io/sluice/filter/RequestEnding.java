package io.sluice.filter;

import io.sluice.Admission;
import io.sluice.Ending;
import io.sluice.internal.Log;
import io.sluice.rule.Rule;
import io.sluice.rule.Settle;
import jakarta.servlet.http.HttpServletResponse;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ends one admitted request, once: settles each rule that settles from a response header at the number the header
 * reports, tells the admission how the response ended (its final status), then returns its concurrency permits.
 * Thread-safe: the first call ends the request, whichever thread (the request's, or an async listener's) makes it.
 */
final class RequestEnding {
    private static final Log LOG = Log.of(RequestEnding.class);
    private final Admission admission;
    private final List<Rule> rules;
    private final HttpServletResponse response;
    /** Null when no rule counts by outcome or settles: the request only closes its admission. */
    private final OutcomeResponse outcome;
    private final AtomicBoolean ended = new AtomicBoolean();

    RequestEnding(Admission admission, List<Rule> rules, HttpServletResponse response, OutcomeResponse outcome) {
        this.admission = admission;
        this.rules = rules;
        this.response = response;
        this.outcome = outcome;
    }

    /**
     * Ends the request as its response's status says, or as a failure ({@code 500}) when {@code failed} (the
     * application threw, the async request failed or timed out): the container answers 500 then.
     *
     * @return completes once the permits given back or charged are in the backend (each within its deadline)
     */
    CompletableFuture<Void> end(boolean failed) {
        if (!ended.compareAndSet(false, true)) return CompletableFuture.completedFuture(null);
        if (outcome == null) {
            admission.close();
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<Void>> pending = new ArrayList<>(2);
        try {
            for (Rule r : rules) {
                if (!r.settle().fromHeader()) continue;
                // A missing, negative or garbled number keeps the estimate: a broken report never gives capacity back.
                OptionalLong actual = Settle.reported(outcome.reported(r.settle().header().get()));
                if (actual.isPresent()) pending.add(admission.settle(r.name(), actual.getAsLong()).toCompletableFuture());
            }
            int status = failed && !response.isCommitted() ? HttpServletResponse.SC_INTERNAL_SERVER_ERROR : response.getStatus();
            pending.add(admission.end(Ending.status(status)).toCompletableFuture());
        } catch (RuntimeException e) {
            LOG.error("Sluice could not settle a request; it keeps what it was admitted on", e);
        } finally {
            admission.close();
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
    }

    /**
     * Ends a request whose own thread is still here (a synchronous one), and waits for what it gives back or charges,
     * each bounded by the backend's deadline, so that the client's next request is decided on it.
     */
    void endAndWait(boolean failed) {
        try {
            end(failed).join();
        } catch (CompletionException e) {
            LOG.error("Sluice could not settle a request; it keeps what it was admitted on", e);
        }
    }
}
