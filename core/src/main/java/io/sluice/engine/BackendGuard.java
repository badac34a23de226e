package io.sluice.engine;

import java.util.function.Consumer;
import io.sluice.Decision;
import io.sluice.internal.ThrottledLog;
import io.sluice.rule.FailurePolicy;
import io.sluice.rule.Rule;
import io.sluice.spi.Entry;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.RateRequest;
import io.sluice.spi.RequestRefusedException;

import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Everything between a decision and a backend that may be down or slow: Sluice's own deadline on each call
 * (swept by the engine's scheduler, see {@link Deadlines}), a circuit breaker in front of the backend, and the
 * rule's {@code on-backend-failure} once a call has failed or was skipped. Until the backend has answered a call of
 * its {@link Path} within the usual deadline, a call may take until the end of the start-up wait ({@code sluice.await-backend}) instead of its
 * deadline: the first decisions of a fresh JVM (classes loading, code not yet compiled) take longer than a deadline
 * meant for a warm one, and a user's first request should be decided by the backend, not by
 * {@code on-backend-failure}. Thread-safe.
 */
public final class BackendGuard {
    /** Consecutive failures that open the circuit. */
    public static final int FAILURES_BEFORE_OPEN = 5;
    /** How long an open circuit skips the backend before it lets one probe through. */
    static final long COOL_DOWN_MILLIS = 1_000;
    /** The {@code Retry-After} of a request denied by {@code on-backend-failure=deny}. */
    private static final Duration FAILED_CLOSED_RETRY = Duration.ofSeconds(1);
    private static final Throwable CIRCUIT_OPEN = new IllegalStateException("circuit open: backend skipped after repeated failures") {
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    };

    private final Duration timeout;
    private final Ticker ticker;
    private final Deadlines deadlines;
    private final CircuitBreaker breaker;
    private final EngineListener listener;
    private final ThrottledLog log;
    /** This server's share of each limit, for rules whose {@code on-backend-failure} is {@code local}. */
    private final LocalLimits local;
    /** When the start-up wait ends, on {@link #ticker}; calls before it and before a first answer are not cut short. */
    private final long startUpEndsNanos;
    private final boolean startUpWait;
    /** The paths the backend has answered a call of within its deadline: their calls have their usual deadline. */
    private final Set<Path> answered = ConcurrentHashMap.newKeySet();

    /** Calls that run different code (and a different script) in the backend: each is slow the first time. */
    enum Path { RATE, LEASE }

    public BackendGuard(Duration timeout, Ticker ticker, EngineListener listener, ThrottledLog log) {
        this(timeout, Duration.ZERO, ticker, listener, log);
    }

    /**
     * @param startUp from now, how long calls may run past their deadline while the backend has never answered
     *                ({@link Duration#ZERO}: never)
     */
    public BackendGuard(Duration timeout, Duration startUp, Ticker ticker, EngineListener listener, ThrottledLog log) {
        this(timeout, startUp, ticker, listener, log, new LocalLimits(Clock.systemUTC(), () -> 1));
    }

    /** @param local this server's share of each limit, for {@code on-backend-failure=local} */
    public BackendGuard(Duration timeout, Duration startUp, Ticker ticker, EngineListener listener, ThrottledLog log,
                        LocalLimits local) {
        this.local = local;
        this.timeout = timeout;
        this.startUpEndsNanos = ticker.nanos() + startUp.toNanos();
        this.startUpWait = !startUp.isZero();
        this.ticker = ticker;
        // A test's ticker jumps on purpose: only real time tells a busy server from a slow store.
        this.deadlines = ticker == Ticker.SYSTEM ? new Deadlines(ticker, new CpuSaturation(ticker)) : Deadlines.onTestTime(ticker);
        this.breaker = new CircuitBreaker(ticker, FAILURES_BEFORE_OPEN, COOL_DOWN_MILLIS);
        this.listener = listener;
        this.log = log;
        listener.watchCircuit(breaker::isOpen);
    }

    /** {@code sluice.backend-timeout}: the deadline of one backend call. */
    public Duration timeout() {
        return timeout;
    }

    /** Whether the backend may be asked now; when not, decide with {@link #circuitOpen}. */
    public boolean allows() {
        return breaker.allows();
    }

    /**
     * A backend call under the deadline, its outcome reported to the circuit breaker <em>before</em> the caller
     * sees it: a side callback would run after the caller's (CompletableFuture runs the callbacks of one stage
     * latest first), so a caller deciding again at once could still find the circuit open after a successful
     * probe.
     */
    public <T> CompletableFuture<T> call(CompletionStage<T> stage, Duration limit) {
        return call(stage, limit, Path.RATE);
    }

    /** As {@link #call(CompletionStage, Duration)}, for a call of the given path. */
    public <T> CompletableFuture<T> call(CompletionStage<T> stage, Duration limit, Path path) {
        return unjudged(stage, limit, path).whenComplete((v, e) -> {
            // A request the backend refused was answered: the backend is as healthy as after any answer.
            if (e == null || causedByRequest(e)) breaker.onSuccess();
            else breaker.onFailure();
        });
    }

    /** A backend call under the deadline whose outcome the caller reports ({@link #succeeded}, {@link #failed}). */
    public <T> CompletableFuture<T> unjudged(CompletionStage<T> stage, Duration limit) {
        return unjudged(stage, limit, Path.RATE);
    }

    /** As {@link #unjudged(CompletionStage, Duration)}, for a call of the given path. */
    public <T> CompletableFuture<T> unjudged(CompletionStage<T> stage, Duration limit, Path path) {
        listener.backendCalled();
        long started = ticker.nanos();
        // The stage returned runs after the report, so whoever sees the decision sees the call's duration counted.
        return deadlines.bound(stage, atStartUp(limit, path)).whenComplete((v, e) -> {
            // Only an answer within the usual deadline shows the path warm: a cold one may be followed by other cold
            // code (a batch of the burst queued behind it, another script).
            if (e == null && startUpWait && ticker.nanos() - started <= limit.toNanos()) answered.add(path);
            listener.backendAnswered(e == null
                    ? EngineListener.CallOutcome.SUCCESS
                    : unwrap(e) instanceof TimeoutException ? EngineListener.CallOutcome.TIMEOUT
                    : EngineListener.CallOutcome.ERROR, ticker.nanos() - started);
        });
    }

    /** A wait for something else's call (not a call of its own: nothing counted), failed past the deadline. */
    public <T> CompletableFuture<T> bounded(CompletionStage<T> stage, Duration limit) {
        return deadlines.bound(stage, atStartUp(limit, Path.RATE));
    }

    /** The deadline, or the rest of the start-up wait when that is longer and no call of the path was answered yet. */
    private Duration atStartUp(Duration limit, Path path) {
        if (!startUpWait || answered.contains(path)) return limit;
        long left = startUpEndsNanos - ticker.nanos();
        return left > limit.toNanos() ? Duration.ofNanos(left) : limit;
    }

    public void succeeded() {
        breaker.onSuccess();
    }

    public void failed() {
        breaker.onFailure();
    }

    /** Fails the calls past their deadline; run every few milliseconds by the engine's scheduler. */
    public void sweep() {
        deadlines.sweep();
    }

    /** The rule's {@code on-backend-failure} for a rate request whose call failed, was late or was skipped. */
    public Decision failure(Rule rule, RateRequest request, long limit, Throwable e) {
        return failure(rule, request, limit, e, entry -> { });
    }

    /**
     * As {@link #failure(Rule, RateRequest, long, Throwable)}; admitted by this server's share, {@code localEntry} is
     * told the entry of its permits there, which {@link #giveBackLocal(Rule, RateRequest, Entry)} gives back.
     */
    public Decision failure(Rule rule, RateRequest request, long limit, Throwable e, Consumer<Entry> localEntry) {
        return failure(rule, Decision.Kind.RATE, limit, e, () -> local.rate(rule, request, limit, localEntry));
    }

    /**
     * The rule's {@code on-backend-failure} for a concurrency request whose call failed, was late or was skipped; a
     * local decision that admits it holds one of this server's share of permits under the request's permit id, until
     * {@link #releaseLocal}.
     */
    public Decision failure(Rule rule, LeaseRequest request, Throwable e) {
        return failure(rule, Decision.Kind.CONCURRENCY, rule.concurrency(), e, () -> local.acquire(request)
                ? Decision.failedLocal(rule, Decision.Kind.CONCURRENCY, rule.concurrency(), true, Duration.ZERO, 1)
                : Decision.failedLocal(rule, Decision.Kind.CONCURRENCY, rule.concurrency(), false, FAILED_CLOSED_RETRY, 1));
    }

    /** Gives back rate permits a local decision took for a request another rule then rejected. */
    public void giveBackLocal(Rule rule, RateRequest request) {
        giveBackLocal(rule, request, null);
    }

    /** As {@link #giveBackLocal(Rule, RateRequest)}, for the permits kept under {@code entry} (null: unknown). */
    public void giveBackLocal(Rule rule, RateRequest request, Entry entry) {
        local.giveBack(rule, request, entry);
    }

    /** Returns a concurrency permit a local decision took ({@link #failure(Rule, LeaseRequest, Throwable)}). */
    public void releaseLocal(LeaseRequest request) {
        local.release(request);
    }

    private Decision failure(Rule rule, Decision.Kind kind, long limit, Throwable e, Supplier<Decision> byShare) {
        Throwable cause = unwrap(e);
        boolean skipped = cause == CIRCUIT_OPEN;
        FailurePolicy policy = rule.onBackendFailure();
        String what = skipped ? "skipped (circuit open after repeated failures)"
                : cause instanceof TimeoutException ? "too slow" : "failed";
        String decides = switch (policy) {
            case ALLOW -> "allowing";
            case DENY -> "denying";
            case LOCAL -> "deciding by this server's share (1/" + local.divisor() + ")";
        };
        log.warn("backend:" + rule.name(), "Backend " + what + " for rule '" + rule.name() + "'"
                + (skipped ? "" : " (" + cause.getClass().getSimpleName() + ")") + "; " + decides + " per on-backend-failure");
        Decision d = switch (policy) {
            case ALLOW -> Decision.failedOpen(rule, kind, limit);
            case DENY -> Decision.failedClosed(rule, kind, limit, FAILED_CLOSED_RETRY);
            case LOCAL -> byShare.get();
        };
        listener.decided(d, skipped ? EngineListener.Source.CIRCUIT_OPEN : EngineListener.Source.BACKEND_FAILURE);
        return d;
    }

    /**
     * Whether a call failed because of its own request's arguments ({@link RequestRefusedException}): the backend
     * answered, so that is the request's error, decided by {@link #refused}, never a backend failure.
     */
    public static boolean causedByRequest(Throwable e) {
        return unwrap(e) instanceof RequestRefusedException;
    }

    /**
     * The rule's answer to a request the backend refused ({@link #causedByRequest}): a rejection that no wait helps
     * ({@link Decision#neverFits}), reported as the rule's own decision; the circuit and {@code on-backend-failure}
     * are not involved.
     */
    public Decision refused(Rule rule, long limit, long cost, Throwable e) {
        log.warn("refused:" + rule.name(), "Backend refused a request of rule '" + rule.name() + "' (cost " + cost
                + "): " + unwrap(e).getMessage() + "; rejecting it");
        Decision d = Decision.neverFits(rule, limit, 0, Duration.ZERO, cost);
        listener.decided(d, EngineListener.Source.RULE);
        return d;
    }

    /** The rule's {@code on-backend-failure} for a rate request the open circuit skipped. */
    public Decision circuitOpen(Rule rule, RateRequest request, long limit) {
        return failure(rule, request, limit, CIRCUIT_OPEN);
    }

    /** As {@link #circuitOpen(Rule, RateRequest, long)}, telling {@code localEntry} as {@link #failure} does. */
    public Decision circuitOpen(Rule rule, RateRequest request, long limit, Consumer<Entry> localEntry) {
        return failure(rule, request, limit, CIRCUIT_OPEN, localEntry);
    }

    /** The rule's {@code on-backend-failure} for a concurrency request the open circuit skipped. */
    public Decision circuitOpen(Rule rule, LeaseRequest request) {
        return failure(rule, request, CIRCUIT_OPEN);
    }

    public static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
