package io.sluice.engine;

import io.sluice.Decision;
import io.sluice.internal.ThrottledLog;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Concurrency permits: acquired with a lease (waiting up to the rule's {@code wait}), renewed at a third of
 * the lease while held, and released once. A permit the backend grants after Sluice gave up on it is
 * returned at once. Thread-safe.
 */
final class Leases {
    /** The {@code Retry-After} of a rejected concurrency request: permits free when requests end, any moment. */
    static final Duration REJECTED_RETRY = Duration.ofSeconds(1);
    /** Renewals per lease: a permit is renewed twice more before one missed renewal could let it expire. */
    private static final long RENEWALS_PER_LEASE = 3;
    private static final long MIN_RENEWAL_MILLIS = 100;
    /** How often the release of a permit given up on is sent again while Redis cannot answer it. */
    private static final Duration GIVE_UP_RETRY = Duration.ofSeconds(1);

    /**
     * A permit held for a request under a rule, and its renewal; or one of this server's share, taken in memory while
     * the backend could not answer ({@code local}: no renewal, null).
     */
    record Lease(Rule rule, LeaseRequest request, String permitId, ScheduledFuture<?> renewal, boolean local) {
    }

    private final LimiterBackend backend;
    private final BackendGuard guard;
    private final KeyNaming naming;
    private final EngineScheduler scheduler;
    private final ThrottledLog log;
    private final EngineListener listener;
    /** Releases sent and not yet answered, by key. */
    private final ConcurrentHashMap<String, CompletableFuture<?>> releasing = new ConcurrentHashMap<>();
    /** The rules in effect: a permit is returned under its rule's current limit, which a reload may have changed. */
    private final Supplier<RuleSet> rules;

    Leases(LimiterBackend backend, BackendGuard guard, KeyNaming naming, EngineScheduler scheduler, ThrottledLog log,
           EngineListener listener, Supplier<RuleSet> rules) {
        this.rules = rules;
        this.backend = backend;
        this.guard = guard;
        this.naming = naming;
        this.scheduler = scheduler;
        this.log = log;
        this.listener = listener;
    }

    /**
     * Decides the rule's concurrency for the key; a permit taken is added to {@code held}. A release of the key's
     * permit that this server sent and Redis has not answered yet goes first (within the deadline): a call that
     * has returned its permit leaves it free for the next one here, which could otherwise overtake the release.
     */
    CompletionStage<Decision> acquire(Rule rule, String raw, List<Lease> held) {
        LeaseRequest request = request(rule, raw);
        if (!guard.allows()) return CompletableFuture.completedFuture(holdLocal(rule, request, held, guard.circuitOpen(rule, request)));
        CompletableFuture<?> released = releasing.get(request.key());
        if (released == null || released.isDone()) return decide(rule, request, held);
        return afterReleases(request.key()).thenCompose(ignored -> decide(rule, request, held));
    }

    private CompletionStage<Decision> decide(Rule rule, LeaseRequest request, List<Lease> held) {
        CompletionStage<LeaseOutcome> acquired = request.waitTime().isZero()
                ? bounded(request, guard.timeout(), true) : waitThenTryOnceMore(request);
        return acquired.handle((LeaseOutcome o, Throwable e) -> {
            if (e != null) return holdLocal(rule, request, held, guard.failure(rule, request, e));
            Decision d;
            if (o.acquired()) {
                held.add(hold(rule, request, o.permitId()));
                d = Decision.allowed(rule, Decision.Kind.CONCURRENCY, rule.concurrency(), o.available(), Duration.ZERO);
            } else {
                d = Decision.rejected(rule, Decision.Kind.CONCURRENCY, rule.concurrency(), o.available(), Duration.ZERO,
                        REJECTED_RETRY);
            }
            listener.decided(d, EngineListener.Source.BACKEND);
            return d;
        });
    }

    /**
     * One acquire under a deadline. A permit Redis grants after Sluice gave up on it (a deadline, a failed call while
     * Redis ran the script all the same) must not stay taken until its lease ends: giving up releases the permit's id,
     * which Sluice chose, whatever the backend did with it; a release that arrives before the acquire leaves a
     * tombstone that makes the acquire take nothing.
     */
    private CompletableFuture<LeaseOutcome> bounded(LeaseRequest request, Duration limit, boolean judged) {
        CompletionStage<LeaseOutcome> acquiring;
        try {
            acquiring = backend.tryAcquire(request);
        } catch (RuntimeException e) {
            acquiring = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<LeaseOutcome> bounded = judged ? guard.call(acquiring, limit, BackendGuard.Path.LEASE)
                : guard.unjudged(acquiring, limit, BackendGuard.Path.LEASE);
        bounded.whenComplete((ignored, failure) -> {
            if (failure != null) giveUp(request, 0);
        });
        return bounded;
    }

    /**
     * Releases a permit Sluice gave up on, until the release is answered: while Redis cannot answer, the acquire may
     * still run when it can, so the release is sent again (it is idempotent) every {@link #GIVE_UP_RETRY} for as long
     * as that acquire's lease could hold the permit.
     */
    private void giveUp(LeaseRequest request, int attempt) {
        CompletionStage<Boolean> release;
        try {
            release = backend.release(request, request.permitId());
        } catch (RuntimeException e) {
            release = CompletableFuture.failedFuture(e);
        }
        release.whenComplete((ok, e) -> {
            if (e == null) return;
            if ((attempt + 1) * GIVE_UP_RETRY.toMillis() > request.waitTime().plus(request.lease()).toMillis()) {
                log.warn("release", "Could not release a concurrency permit given up on; its lease returns it ("
                        + e.getClass().getSimpleName() + ")");
                return;
            }
            scheduler.later(() -> giveUp(request, attempt + 1), GIVE_UP_RETRY.toMillis());
        });
    }

    /**
     * A waiting acquire whose deadline (timeout + wait) passes before the backend's own wait has ended (a
     * loaded machine, a late wake-up) is not a backend failure: with {@code on-backend-failure=allow} it would
     * admit the request without a permit. It gets one last immediate try instead (under a new permit id: the old
     * one was given up), and only a backend that cannot answer that one either follows the failure policy.
     */
    private CompletionStage<LeaseOutcome> waitThenTryOnceMore(LeaseRequest request) {
        return bounded(request, guard.timeout().plus(request.waitTime()), false).handle((o, e) -> {
            Throwable cause = BackendGuard.unwrap(e);
            if (cause == null) {
                guard.succeeded();
                return CompletableFuture.completedFuture(o);
            }
            if (!(cause instanceof TimeoutException)) {
                guard.failed();
                return CompletableFuture.<LeaseOutcome>failedFuture(cause);
            }
            LeaseRequest now = new LeaseRequest(request.key(), request.limit(), request.lease(), Duration.ZERO);
            return bounded(now, guard.timeout(), true);
        }).thenCompose(last -> last);
    }

    /** A failure policy's decision; one that took a permit of this server's share ({@code local}) holds it. */
    private Decision holdLocal(Rule rule, LeaseRequest request, List<Lease> held, Decision d) {
        if (d.allowed() && d.outcome() == Decision.Outcome.FAILED_LOCAL) {
            listener.permitTaken(rule);
            held.add(new Lease(rule, request, request.permitId(), null, true));
        }
        return d;
    }

    private Lease hold(Rule rule, LeaseRequest request, String permitId) {
        listener.permitTaken(rule);
        long every = Math.max(MIN_RENEWAL_MILLIS, request.lease().toMillis() / RENEWALS_PER_LEASE);
        ScheduledFuture<?> renewal = scheduler.atFixedRate(() -> backend.renew(request, permitId).whenComplete((ok, e) -> {
            if (e != null || !Boolean.TRUE.equals(ok)) {
                log.warn("renew", "Could not renew a concurrency lease"
                        + (e != null ? " (" + e.getClass().getSimpleName() + ")" : " (permit expired)"));
            }
        }), every);
        return new Lease(rule, request, permitId, renewal, false);
    }

    /** Stops the renewal and returns the permit; the answer is never waited for (but the key's next acquire here waits). */
    void release(Lease lease) {
        if (lease.local()) {
            guard.releaseLocal(lease.request());
            listener.permitReturned(lease.rule());
            return;
        }
        lease.renewal().cancel(false);
        listener.permitReturned(lease.rule());
        String key = lease.request().key();
        CompletableFuture<Boolean> release;
        try {
            release = backend.release(underCurrentLimit(lease), lease.permitId()).toCompletableFuture();
        } catch (RuntimeException e) {
            release = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Boolean> sent = release;
        releasing.compute(key, (k, before) -> before == null || before.isDone() ? sent : CompletableFuture.allOf(before, sent));
        sent.whenComplete((ok, e) -> {
            releasing.computeIfPresent(key, (k, pending) -> pending.isDone() ? null : pending);
            if (e != null) {
                log.warn("release", "Could not release a concurrency permit; its lease returns it ("
                        + e.getClass().getSimpleName() + ")");
            }
        });
    }

    /**
     * The lease's request with its rule's limit as it is now: the free count a release leaves is the current limit
     * minus the permits held. A rule that is gone or has no concurrency any more keeps the limit it had, and so does a
     * permit taken under a plan (the rule's own limit is not its). That count is only what Redisson's own semaphore
     * objects read: Sluice's acquires judge by their own limit and the leases held, and every release wakes them.
     */
    private LeaseRequest underCurrentLimit(Lease lease) {
        LeaseRequest r = lease.request();
        if (lease.rule().plans().any()) return r;
        int now = rules.get().get(lease.rule().name()).filter(Rule::limitsConcurrency).map(Rule::concurrency).orElse(r.limit());
        return r.withLimit(now);
    }

    /** Permits of the rule free now for the raw key value, counting the releases this server has sent. */
    CompletionStage<Integer> available(Rule rule, String raw) {
        LeaseRequest request = request(rule, raw);
        return afterReleases(request.key()).thenCompose(ignored -> backend.available(request));
    }

    /** Completes once the key's releases in flight from this server have been answered (or the deadline passed). */
    private CompletionStage<Void> afterReleases(String key) {
        CompletableFuture<?> released = releasing.get(key);
        if (released == null || released.isDone()) return CompletableFuture.completedFuture(null);
        return guard.bounded(released, guard.timeout()).handle((v, e) -> null);
    }

    private LeaseRequest request(Rule rule, String raw) {
        return new LeaseRequest(naming.lease(rule, raw), rule.concurrency(), rule.lease(), rule.waitTime());
    }
}
