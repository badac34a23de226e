package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.internal.Coalescer;
import io.sluice.spi.Batching;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Coalescing: one backend call at a time per key. While a call for a key is in flight, later requests for that
 * key wait and then go together, in arrival order, as one backend call ({@link Batching#tryConsumeAll})
 * that decides each of them as sequential calls at that instant would, at most {@link #MAX_BATCH} at a time. An
 * idle key's request goes at once, alone. A request's deadline starts when its call is sent; one queued behind a
 * call that failed (Redis down, or past the deadline) fails with it, unsent, so waiting its turn never makes it
 * cost more than a deadline of a Redis that does not answer. One per engine, shared by the rules' paths (a key's
 * calls are one lane whatever rule snapshot asks). Thread-safe.
 */
final class Lanes {
    /** Decisions for one key in one backend call at most; more wait for the next call. */
    static final int MAX_BATCH = 64;

    private final LimiterBackend backend;
    /** The backend's batching, or one call per request for a backend without it. */
    private final Batching batching;
    private final BackendGuard guard;
    private final Shield shield;
    private final Coalescer<Pending> lanes = new Coalescer<>(MAX_BATCH, this::dispatch);

    Lanes(LimiterBackend backend, Batching batching, BackendGuard guard, Shield shield) {
        this.backend = backend;
        this.batching = batching;
        this.guard = guard;
        this.shield = shield;
    }

    /**
     * The call of a rule's requests through these lanes.
     *
     * @param shielded        whether the shield screens the rule's queued requests and learns from their answers
     * @param shieldCapMillis how long the shield may remember an answer at most ({@link RatePath})
     */
    RateCall call(boolean shielded, long shieldCapMillis) {
        return ask -> {
            Pending p = new Pending(ask, shielded, shieldCapMillis);
            lanes.submit(ask.key(), p);
            return new RateCall.Sent(p.answer, p.late);
        };
    }

    /** One request waiting for (or in) a backend call. */
    private static final class Pending {
        final RateAsk ask;
        final boolean shielded;
        final long shieldCapMillis;
        /** What the backend answered, the shield's rejection, or the failure the rule's failure policy decides. */
        final CompletableFuture<RateAnswer> answer = new CompletableFuture<>();
        /** The backend's own answer whenever it comes, after the deadline too; never, when the call was not sent. */
        final CompletableFuture<RateOutcome> late = new CompletableFuture<>();

        Pending(RateAsk ask, boolean shielded, long shieldCapMillis) {
            this.ask = ask;
            this.shielded = shielded;
            this.shieldCapMillis = shieldCapMillis;
        }

        RateRequest request() {
            return ask.request();
        }
    }

    /**
     * Sends one batch of a key's requests, once each caller of the key's previous batch has its answer. If that
     * call failed (Redis down, or slower than the deadline), the requests that queued behind it fail with it,
     * unsent: so a frozen Redis costs a queued request at most what remained of the deadline ahead of it. Else
     * those the shield now knows will be rejected are answered here, and the rest go in one backend call, each
     * under its own deadline from now: a decision of a healthy burst is not late for having waited its turn.
     * The shield learns the batch's last answer (the key's newest state) before any caller sees an answer.
     */
    private CompletionStage<Throwable> dispatch(String key, List<Pending> batch, Throwable behind) {
        if (behind != null) {
            for (Pending p : batch) p.answer.completeExceptionally(behind);
            return CompletableFuture.completedFuture(null);
        }
        Shield.Batch screening = shield.batch(key);
        List<Pending> sent = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            RateAnswer.Screened screened = p.shielded ? screening.screen(p.ask) : null;
            if (screened != null) p.answer.complete(screened);
            else sent.add(p);
        }
        if (sent.isEmpty()) return CompletableFuture.completedFuture(null);
        return sent.size() == 1 ? one(sent.get(0), screening) : together(sent, screening);
    }

    /** The common case (an idle key): one call, no batch bookkeeping. */
    private CompletionStage<Throwable> one(Pending p, Shield.Batch screening) {
        CompletionStage<RateOutcome> call;
        try {
            call = backend.tryConsume(p.request());
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((o, e) -> {
            if (e == null) p.late.complete(o);
        });
        return guard.call(call, guard.timeout()).handle((o, e) -> {
            if (e != null) {
                p.answer.completeExceptionally(e);
                // A request the backend refused fails alone: the key's next batch goes as after any answer.
                return BackendGuard.causedByRequest(e) ? null : BackendGuard.unwrap(e);
            }
            learn(screening, p, o);
            p.answer.complete(new RateAnswer.Answered(o));
            return null;
        });
    }

    /** Several requests of a key in one call, each answered under its own deadline. */
    private CompletionStage<Throwable> together(List<Pending> sent, Shield.Batch screening) {
        List<RateRequest> requests = new ArrayList<>(sent.size());
        for (Pending p : sent) requests.add(p.request());
        CompletionStage<List<RateOutcome>> call;
        try {
            call = batching.tryConsumeAll(requests);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        // Each decision's answer, under its deadline, reported to the breaker and the listener one by one.
        List<CompletableFuture<RateOutcome>> answers = new ArrayList<>(sent.size());
        CompletableFuture<?>[] bounded = new CompletableFuture<?>[sent.size()];
        for (int i = 0; i < sent.size(); i++) {
            CompletableFuture<RateOutcome> answer = new CompletableFuture<>();
            answers.add(answer);
            Pending p = sent.get(i);
            bounded[i] = guard.call(answer, guard.timeout()).whenComplete((o, e) -> {
                if (e != null) p.answer.completeExceptionally(e);
                else p.answer.complete(new RateAnswer.Answered(o));
            });
        }
        call.whenComplete((outcomes, e) -> {
            if (e != null) {
                for (CompletableFuture<RateOutcome> a : answers) a.completeExceptionally(e);
                return;
            }
            learn(screening, sent.get(sent.size() - 1), outcomes.get(outcomes.size() - 1));
            for (int i = 0; i < answers.size(); i++) {
                sent.get(i).late.complete(outcomes.get(i));
                answers.get(i).complete(outcomes.get(i));
            }
        });
        // The key's next batch goes once every decision of this one has its answer or has given up at its
        // deadline: a call stuck on a frozen Redis (until the client's own, maybe longer, timeout) holds up no
        // later batch for longer than the deadline.
        CompletableFuture<?> ended = bounded.length == 1 ? bounded[0] : CompletableFuture.allOf(bounded);
        return ended.handle((v, e) -> e == null || BackendGuard.causedByRequest(e) ? null : BackendGuard.unwrap(e));
    }

    /**
     * The shield learns the key's newest state from the last answer of a call, while a batch could use it up:
     * then the next batch sends only what may fit.
     */
    private void learn(Shield.Batch screening, Pending last, RateOutcome newest) {
        if (!last.shielded) return;
        long near = (long) MAX_BATCH * Math.max(1, screening.maxCost());
        shield.learn(screening, last.request(), last.shieldCapMillis, newest.remaining(), newest.resetMillis(), near);
    }
}
