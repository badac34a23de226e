package io.sluice;

import io.sluice.internal.CircuitBreaker;
import io.sluice.internal.Deadlines;
import io.sluice.internal.DenyCache;
import io.sluice.internal.ThrottledLog;
import io.sluice.key.KeyResolver;
import io.sluice.key.RequestView;
import io.sluice.memory.InMemoryBackend;
import io.sluice.redisson.RedissonBackend;
import io.sluice.redisson.RedissonClients;
import io.sluice.rule.FailurePolicy;
import io.sluice.rule.MissingKeyPolicy;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The engine: a parsed rules file and a backend that stores the limits. Adapters (the servlet filter,
 * the CDI interceptor) ask it to {@link #admit} a request under the rules that apply to it, then write
 * the verdict in their own terms.
 *
 * <p>Rules are applied as the contract says: rate rules first, then concurrency rules, each group in the
 * order given (name order); the first rejection ends the request and returns the concurrency permits
 * already taken for it; permits of rate rules that allowed it stay consumed. Each backend call is bounded
 * by {@code sluice.backend-timeout}; when it fails or is late, the rule's {@code on-backend-failure} decides.
 * Concurrency permits are renewed at a third of their lease while they are held.
 *
 * <p>Thread-safe; build one per application and {@link #close()} it on shutdown.
 */
public final class Sluice implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Sluice.class);
    private static final Duration REJECTED_CONCURRENCY_RETRY = Duration.ofSeconds(1);
    private static final Throwable CIRCUIT_OPEN = new IllegalStateException("circuit open: backend skipped after repeated failures") {
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    };

    private final RuleSet rules;
    private final LimiterBackend backend;
    private final KeyResolver resolver;
    private final Duration timeout;
    private final String keyPrefix;
    /** Lease renewals and decision deadlines: Sluice's own daemon thread, stopped by {@link #close()}. */
    private final ScheduledExecutorService scheduler;
    /** The scheduler's threads, so that {@link #close} can wait until they have really ended. */
    private final Queue<Thread> schedulerThreads = new ConcurrentLinkedQueue<>();
    private final ThrottledLog throttledLog = new ThrottledLog(LOG, 10_000);
    private final Clock clock;
    /** Keys a rate rule rejected, until their retry-after: answered here without a Redis round trip. */
    private final DenyCache denied = new DenyCache(100_000);
    /** Decision deadlines, swept by the scheduler thread. */
    private final Deadlines deadlines = new Deadlines();
    /** After 5 failures in a row, decisions skip Redis for a second at a time until a probe succeeds. */
    private final CircuitBreaker breaker;
    private final Duration maxClockSkew;
    private volatile Duration clockSkew;
    private final java.util.concurrent.atomic.AtomicBoolean skewRetryPending = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.LongAdder backendCalls = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder failedOpen = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder failedClosed = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder circuitOpenSkips = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder shielded = new java.util.concurrent.atomic.LongAdder();

    private Sluice(RuleSet rules, LimiterBackend backend, Clock clock) {
        this.rules = rules;
        this.backend = backend;
        this.clock = clock;
        this.breaker = new CircuitBreaker(clock, 5, 1_000);
        this.maxClockSkew = rules.settings().maxClockSkew();
        this.resolver = new KeyResolver(rules.settings().trustedProxies());
        this.timeout = rules.settings().backendTimeout();
        this.keyPrefix = rules.settings().keyPrefix();
        java.util.concurrent.ScheduledThreadPoolExecutor timers = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-scheduler");
            t.setDaemon(true);
            schedulerThreads.add(t);
            return t;
        });
        // Lease renewals are cancelled when their request ends; drop them from the queue at once.
        timers.setRemoveOnCancelPolicy(true);
        this.scheduler = timers;
        scheduler.scheduleWithFixedDelay(this::measureClockSkew, 0, 60, TimeUnit.SECONDS);
        scheduler.scheduleWithFixedDelay(deadlines::sweep, 10, 10, TimeUnit.MILLISECONDS);
    }

    /** A Sluice for the properties of a rules file, on the Redis they name. */
    public static Sluice fromProperties(Map<String, String> properties) {
        return builder().properties(properties).build();
    }

    /** A Sluice for the properties of a rules file, on the Redis they name. */
    public static Sluice fromProperties(Properties properties) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) map.put(name, properties.getProperty(name));
        return fromProperties(map);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The parsed rules file. */
    public RuleSet rules() {
        return rules;
    }

    /** The backend the limits are stored in. */
    public LimiterBackend backend() {
        return backend;
    }

    /** Key values of a request, resolved by each rule's {@code key}. */
    public KeySource keysOf(RequestView request) {
        return rule -> resolver.resolve(rule.key(), request);
    }

    /**
     * Decides a request under the given rules (in name order). The returned admission must be closed when
     * the request ends, rejected or not. The stage never completes exceptionally for backend failures.
     */
    public CompletionStage<Admission> admit(List<Rule> applicable, KeySource keys) {
        if (applicable.isEmpty()) return CompletableFuture.completedFuture(Admission.none());
        List<Step> steps = new ArrayList<>(applicable.size() + 1);
        for (Rule r : applicable) if (r.limitsRate()) steps.add(new Step(r, Decision.Kind.RATE));
        for (Rule r : applicable) if (r.limitsConcurrency()) steps.add(new Step(r, Decision.Kind.CONCURRENCY));
        return run(steps, 0, new Progress(keys));
    }

    /**
     * This server's clock minus the backend's, as last measured (at start and every minute), or empty before
     * the first measurement or for a backend without a clock. Both Redisson primitives trust this server's
     * clock, so a skew beyond {@code sluice.max-clock-skew} is logged.
     */
    public java.util.Optional<Duration> clockSkew() {
        return java.util.Optional.ofNullable(clockSkew);
    }

    private void measureClockSkew() {
        long before = clock.millis();
        backend.serverTimeMillis().whenComplete((server, e) -> {
            if (e != null) {
                // Redis down or slow at start: measure again soon rather than in a minute. One retry pending
                // at a time: the minutely measurement fails too while Redis is down, and must not start a
                // second chain of retries each minute.
                if (clockSkew == null && !scheduler.isShutdown() && skewRetryPending.compareAndSet(false, true)) {
                    try {
                        scheduler.schedule(() -> {
                            skewRetryPending.set(false);
                            measureClockSkew();
                        }, 1, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.RejectedExecutionException closed) {
                        // closing
                    }
                }
                return;
            }
            if (server == null) return; // a store without a clock of its own
            long after = clock.millis();
            Duration skew = Duration.ofMillis((before + after) / 2 - server);
            clockSkew = skew;
            if (skew.abs().compareTo(maxClockSkew) > 0) {
                throttledLog.warn("clock-skew", "This server's clock differs from Redis's by " + skew.toMillis()
                        + " ms, more than sluice.max-clock-skew (" + maxClockSkew.toMillis()
                        + " ms): windows and leases are measured with each server's own clock");
            }
        });
    }

    /** Counts of decisions since this engine started. */
    public Stats stats() {
        return new Stats(backendCalls.sum(), failedOpen.sum(), failedClosed.sum(), circuitOpenSkips.sum(), shielded.sum());
    }

    /** Concurrency permits of the rule that are free now for the raw key value (for monitoring and tests). */
    public CompletionStage<Integer> availablePermits(Rule rule, String rawKey) {
        return backend.available(leaseRequest(rule, rawKey));
    }

    private record Step(Rule rule, Decision.Kind kind) {
    }

    private record Held(LeaseRequest request, String permitId, ScheduledFuture<?> renewal) {
    }

    /** What one admission has decided and taken so far. Confined to one admission's chain of stages. */
    private static final class Progress {
        private static final String UNRESOLVED = new String("unresolved");
        final KeySource keys;
        final List<Decision> decisions = new ArrayList<>(2);
        final List<Held> held = new ArrayList<>(1);
        private final java.util.Map<Rule, String> resolved = new java.util.IdentityHashMap<>(2);

        Progress(KeySource keys) {
            this.keys = keys;
        }

        /** A rule with both a rate and a concurrency limit resolves its key once per request. */
        String keyFor(Rule rule) {
            String v = resolved.computeIfAbsent(rule, r -> {
                String k = keys.keyFor(r);
                return k == null ? UNRESOLVED : k;
            });
            return v == UNRESOLVED ? null : v;
        }
    }

    private CompletionStage<Admission> run(List<Step> steps, int from, Progress p) {
        for (int i = from; i < steps.size(); i++) {
            Step step = steps.get(i);
            String raw = p.keyFor(step.rule());
            if (raw == null) {
                if (step.rule().onMissingKey() == MissingKeyPolicy.SKIP) continue;
                Decision d = missingKey(step);
                p.decisions.add(d);
                if (d.rejects()) return CompletableFuture.completedFuture(finish(p, d));
                continue;
            }
            CompletableFuture<Decision> decided = (step.kind() == Decision.Kind.RATE
                    ? rate(step.rule(), raw) : concurrency(step.rule(), raw, p)).toCompletableFuture();
            // Answered already (the attack shield, an in-memory backend): go on without another stage.
            if (decided.isDone() && !decided.isCompletedExceptionally()) {
                Decision d = decided.join();
                if (record(p, d)) return CompletableFuture.completedFuture(finish(p, d));
                continue;
            }
            int next = i + 1;
            return decided.thenCompose(d -> record(p, d)
                    ? CompletableFuture.completedFuture(finish(p, d)) : run(steps, next, p));
        }
        return CompletableFuture.completedFuture(finish(p, null));
    }

    /** Adds a decision to the request's; whether it rejects the request. */
    private boolean record(Progress p, Decision d) {
        p.decisions.add(d);
        if (d.rejects()) return true;
        if (d.dryRunRejection()) {
            throttledLog.warn("dry-run:" + d.ruleName(), "Dry-run rule '" + d.ruleName()
                    + "' would have rejected a request (" + d.kind().name().toLowerCase() + " limit " + d.limit() + ")");
        }
        return false;
    }

    private Admission finish(Progress p, Decision rejection) {
        List<Held> held = List.copyOf(p.held);
        if (rejection != null) {
            held.forEach(this::release);
            return new Admission(p.decisions, rejection, () -> { }, rules.settings().headers());
        }
        if (held.isEmpty()) return new Admission(p.decisions, null, () -> { });
        return new Admission(p.decisions, null, () -> held.forEach(this::release));
    }

    private CompletionStage<Decision> rate(Rule rule, String raw) {
        long limit = rule.rate().orElseThrow().permits();
        String key = rateKey(rule, raw);
        // Dry-run rules always ask the backend: they exist to measure, and never reject anyway.
        if (rule.dryRun()) return askRate(rule, key, limit, false);
        DenyCache.Check check = denied.check(key, clock.millis());
        if (check.deniedMillis() > 0) {
            shielded.increment();
            Duration wait = Duration.ofMillis(check.deniedMillis());
            return CompletableFuture.completedFuture(
                    new Decision(rule, Decision.Kind.RATE, false, limit, 0, wait, wait, Decision.Outcome.DECIDED));
        }
        // Another request is asking the backend about this key right now: its answer decides for us too.
        if (check.pending() != null) return check.pending().thenCompose(ignored -> rate(rule, raw));
        CompletionStage<Decision> asked = askRate(rule, key, limit, true);
        if (!check.probe()) return asked;
        return asked.whenComplete((d, e) -> denied.settle(key, clock.millis()));
    }

    private CompletionStage<Decision> askRate(Rule rule, String key, long limit, boolean shield) {
        RateRequest request = new RateRequest(key, limit, rule.rate().get().period(), 1);
        if (!breaker.allows()) {
            return CompletableFuture.completedFuture(backendFailure(rule, Decision.Kind.RATE, limit, CIRCUIT_OPEN));
        }
        long asked = clock.millis();
        return guarded(backend.tryConsume(request), timeout).handle((RateOutcome o, Throwable e) -> {
            if (e != null) return backendFailure(rule, Decision.Kind.RATE, limit, e);
            Duration reset = Duration.ofMillis(o.resetMillis());
            Duration retry = o.allowed() ? Duration.ZERO : Duration.ofMillis(Math.max(o.retryAfterMillis(), o.resetMillis()));
            // Rejected, or just took the last permit: no permit frees before the oldest one leaves the window.
            if (shield && !o.allowed()) denied.deny(key, asked, retry.toMillis());
            if (shield && o.allowed() && o.remaining() <= 0) denied.deny(key, asked, o.resetMillis());
            return new Decision(rule, Decision.Kind.RATE, o.allowed(), limit, o.remaining(), reset, retry, Decision.Outcome.DECIDED);
        });
    }

    private CompletionStage<Decision> concurrency(Rule rule, String raw, Progress p) {
        LeaseRequest request = leaseRequest(rule, raw);
        if (!breaker.allows()) {
            return CompletableFuture.completedFuture(
                    backendFailure(rule, Decision.Kind.CONCURRENCY, rule.concurrency(), CIRCUIT_OPEN));
        }
        CompletionStage<LeaseOutcome> acquiring = backend.tryAcquire(request);
        CompletableFuture<LeaseOutcome> bounded = guarded(acquiring, timeout.plus(rule.waitTime()));
        // A permit granted after we gave up on it must not stay taken until its lease runs out.
        acquiring.whenComplete((o, e) -> {
            if (o != null && o.acquired() && bounded.isCompletedExceptionally()) {
                backend.release(request, o.permitId());
            }
        });
        return bounded.handle((LeaseOutcome o, Throwable e) -> {
            if (e != null) return backendFailure(rule, Decision.Kind.CONCURRENCY, rule.concurrency(), e);
            if (o.acquired()) p.held.add(hold(request, o.permitId()));
            return new Decision(rule, Decision.Kind.CONCURRENCY, o.acquired(), rule.concurrency(), o.available(),
                    Duration.ZERO, o.acquired() ? Duration.ZERO : REJECTED_CONCURRENCY_RETRY, Decision.Outcome.DECIDED);
        });
    }

    private Held hold(LeaseRequest request, String permitId) {
        long every = Math.max(100, request.lease().toMillis() / 3);
        ScheduledFuture<?> renewal = scheduler.scheduleAtFixedRate(() -> backend.renew(request, permitId).whenComplete((ok, e) -> {
            if (e != null || !Boolean.TRUE.equals(ok)) {
                throttledLog.warn("renew", "Could not renew a concurrency lease"
                        + (e != null ? " (" + e.getClass().getSimpleName() + ")" : " (permit expired)"));
            }
        }), every, every, TimeUnit.MILLISECONDS);
        return new Held(request, permitId, renewal);
    }

    private void release(Held h) {
        h.renewal().cancel(false);
        backend.release(h.request(), h.permitId()).whenComplete((ok, e) -> {
            if (e != null) {
                throttledLog.warn("release", "Could not release a concurrency permit; its lease returns it ("
                        + e.getClass().getSimpleName() + ")");
            }
        });
    }

    private Decision backendFailure(Rule rule, Decision.Kind kind, long limit, Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        boolean allow = rule.onBackendFailure() == FailurePolicy.ALLOW;
        (allow ? failedOpen : failedClosed).increment();
        if (cause == CIRCUIT_OPEN) circuitOpenSkips.increment();
        String what = cause == CIRCUIT_OPEN ? "skipped (circuit open after repeated failures)"
                : cause instanceof TimeoutException ? "too slow" : "failed";
        throttledLog.warn("backend:" + rule.name(), "Backend " + what
                + " for rule '" + rule.name() + "'" + (cause == CIRCUIT_OPEN ? "" : " (" + cause.getClass().getSimpleName() + ")") + "; "
                + (allow ? "allowing" : "denying") + " per on-backend-failure");
        return new Decision(rule, kind, allow, limit, allow ? limit : 0, Duration.ZERO,
                allow ? Duration.ZERO : Duration.ofSeconds(1), Decision.Outcome.BACKEND_FAILURE);
    }

    private static Decision missingKey(Step step) {
        Rule rule = step.rule();
        long limit = step.kind() == Decision.Kind.RATE ? rule.rate().orElseThrow().permits() : rule.concurrency();
        Duration retry = step.kind() == Decision.Kind.RATE ? rule.rate().get().period() : REJECTED_CONCURRENCY_RETRY;
        return new Decision(rule, step.kind(), false, limit, 0, Duration.ZERO, retry, Decision.Outcome.MISSING_KEY);
    }

    private LeaseRequest leaseRequest(Rule rule, String raw) {
        return new LeaseRequest(keyPrefix + ":" + rule.name() + ":c" + rule.concurrency() + ":" + KeyResolver.hash(raw),
                rule.concurrency(), rule.lease(), rule.waitTime());
    }

    /** The rule's rate is in the key, so an edited rate starts a fresh counter instead of being ignored. */
    private String rateKey(Rule rule, String raw) {
        var rate = rule.rate().orElseThrow();
        return keyPrefix + ":" + rule.name() + ":r" + rate.permits() + "-" + rate.period().toMillis() + ":" + KeyResolver.hash(raw);
    }

    /** A decision call under the deadline, reporting its outcome to the circuit breaker. */
    private <T> CompletableFuture<T> guarded(CompletionStage<T> stage, Duration limit) {
        backendCalls.increment();
        CompletableFuture<T> bounded = deadline(stage, limit);
        bounded.whenComplete((v, e) -> {
            if (e == null) breaker.onSuccess();
            else breaker.onFailure();
        });
        return bounded;
    }

    /**
     * The stage, or a {@link TimeoutException} once {@code limit} has passed (swept every 10 ms). Not
     * {@code orTimeout}: its JDK timer thread would outlive the application in a servlet container; and not
     * a scheduled task per call, which would wake the timer thread on every decision.
     */
    private <T> CompletableFuture<T> deadline(CompletionStage<T> stage, Duration limit) {
        return deadlines.bound(stage, limit);
    }

    /**
     * Stops lease renewal and closes the backend (and the Redis client, when Sluice created it). Returns once
     * Sluice's own thread has ended (within a few seconds), so a container undeploying the application finds
     * no thread of it still running.
     */
    @Override
    public void close() {
        scheduler.shutdownNow();
        backend.close();
        try {
            for (Thread t : schedulerThreads) t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Builds a {@link Sluice}. Not thread-safe; the built instance is. */
    public static final class Builder {
        private RuleSet rules;
        private LimiterBackend backend;
        private RedissonClient redisson;
        private Clock clock = Clock.systemUTC();
        private ClassLoader classLoader;
        private boolean inMemory;

        private Builder() {
        }

        /** The rules, parsed from the properties of a rules file. */
        public Builder properties(Map<String, String> properties) {
            this.rules = RuleParser.parse(properties);
            return this;
        }

        public Builder rules(RuleSet rules) {
            this.rules = Objects.requireNonNull(rules);
            return this;
        }

        /** A backend of your own; Sluice closes it on {@link Sluice#close()}. */
        public Builder backend(LimiterBackend backend) {
            this.backend = backend;
            return this;
        }

        /** Your own Redisson client; Sluice uses it and leaves it open on close. */
        public Builder redisson(RedissonClient client) {
            this.redisson = client;
            return this;
        }

        /** Keep the limits in this JVM only: for tests and single-node use. */
        public Builder inMemory() {
            this.inMemory = true;
            return this;
        }

        /** The clock of this server (the time base of the Redisson primitives); for tests. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** Where {@code classpath:} locations (such as {@code sluice.redis.config}) are looked up. */
        public Builder classLoader(ClassLoader loader) {
            this.classLoader = loader;
            return this;
        }

        public Sluice build() {
            if (rules == null) throw new IllegalStateException("rules or properties are required");
            LimiterBackend b = backend;
            if (b == null && inMemory) b = new InMemoryBackend(clock);
            if (b == null && redisson != null) b = new RedissonBackend(redisson, false, clock, rules.settings().backendTimeout());
            if (b == null) {
                b = new RedissonBackend(RedissonClients.create(rules.settings(), classLoader), true, clock,
                        rules.settings().backendTimeout());
            }
            return new Sluice(rules, b, clock);
        }
    }
}
