package io.sluice.cdi;

import io.sluice.Admission;
import io.sluice.Ending;
import io.sluice.internal.Log;
import io.sluice.rule.Rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ends one admitted {@code @Limited} call, once: settles what its {@link Settlement} reported, tells the admission
 * whether the call returned or threw (a rule's {@code count}), then returns its concurrency permits. Thread-safe.
 */
final class CallEnding {
    private static final Log LOG = Log.of(CallEnding.class);
    private final Admission admission;
    private final Settlement settlement;
    private final AtomicBoolean ended = new AtomicBoolean();

    CallEnding(Admission admission, List<Rule> rules) {
        this.admission = admission;
        this.settlement = new Settlement(rules);
    }

    /** Makes the call's {@link Settlement} current on this thread while the method runs; the result puts it back. */
    Runnable enter() {
        return settlement.enter();
    }

    /**
     * Ends the call: a failure when {@code error} is not null.
     *
     * @return completes once what is given back or charged is in the backend (each within its deadline)
     */
    CompletableFuture<Void> end(Throwable error) {
        if (!ended.compareAndSet(false, true)) return CompletableFuture.completedFuture(null);
        List<CompletableFuture<Void>> pending = new ArrayList<>(2);
        try {
            for (Rule r : settlement.rules()) {
                Optional<Long> actual = settlement.reportedFor(r);
                if (actual.isPresent()) pending.add(admission.settle(r.name(), actual.get()).toCompletableFuture());
            }
            pending.add(admission.end(error == null ? Ending.success() : Ending.failure()).toCompletableFuture());
        } catch (RuntimeException e) {
            LOG.error("Sluice could not settle a call; it keeps what it was admitted on", e);
        } finally {
            admission.close();
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).exceptionally(e -> null);
    }

    /** Ends a call that ran on this thread, and waits for what it gives back or charges (each bounded by its deadline). */
    void endAndWait(Throwable error) {
        try {
            end(error).join();
        } catch (CompletionException e) {
            LOG.error("Sluice could not settle a call; it keeps what it was admitted on", e);
        }
    }
}
