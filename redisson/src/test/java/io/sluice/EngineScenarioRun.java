package io.sluice;

import io.sluice.engine.Deadlines;
import io.sluice.engine.EngineProbe;
import io.sluice.EngineScenario.Advance;
import io.sluice.EngineScenario.ClearOverride;
import io.sluice.EngineScenario.Freeze;
import io.sluice.EngineScenario.Ended;
import io.sluice.Ending;
import io.sluice.EngineScenario.Release;
import io.sluice.EngineScenario.Reload;
import io.sluice.EngineScenario.Request;
import io.sluice.EngineScenario.Restart;
import io.sluice.EngineScenario.SetOverride;
import io.sluice.EngineScenario.Step;
import io.sluice.key.RequestView;
import io.sluice.model.ConcurrencyModel;
import io.sluice.model.EngineModel;
import io.sluice.model.WindowBounds;
import io.sluice.redisson.CallerClockBackends;
import io.sluice.redisson.RedissonBackend;
import io.sluice.rule.Durations;
import io.sluice.rule.PlanLimits;
import io.sluice.rule.Rate;
import io.sluice.rule.Rule;
import io.sluice.rule.Plans;
import io.sluice.rule.Throttling;
import io.sluice.rule.RuleParser;
import io.sluice.spi.Algorithm;
import io.sluice.testing.MutableClock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Drives {@link EngineScenario#engines()} real engines on one real Redis and the {@link EngineModel} with the same
 * steps and the same injected time (the engines' clock and ticker, and the Redis scripts' time through
 * {@code onCallerClock}), and checks at every step what the contract promises: exactly the model's decisions where
 * it promises exactness (one engine, no fault), never more admitted in a window than the rule allows across the
 * engines together ({@link WindowBounds}), never more in flight than the admitted request's plan allows, a waiter
 * admitted once a permit it may take is free, and every concurrency permit free once every request has ended.
 */
final class EngineScenarioRun implements AutoCloseable {
    /** What went wrong, and at which step (the kind keeps the shrinking on one defect). */
    record Failure(String kind, int step, String message) {
        @Override
        public String toString() {
            return kind + " at step " + step + ": " + message;
        }
    }

    /** A real-time bound on an answer that has no reason to wait (a leaky bucket's slot is at most about a second). */
    private static final long ANSWER_SECONDS = 10;
    /** How long a request that the model says must wait is watched for an answer before the run looks for its waiter. */
    private static final long WAITING_MILLIS = 300;
    /** How often the run then looks whether it is answered or waiting in its engine. */
    private static final long WAITER_LOOK_MILLIS = 10;
    /** How long a waiter may take to be admitted once a permit it may take is free (its wait is 30 s). */
    private static final long WAKE_SECONDS = 5;
    /**
     * How long a release with waiters none of which may go in is watched for a waiter admitted anyway. Detection
     * only: a slower wrong wake-up is caught at a later step, and never is a correct run failed by it.
     */
    private static final long WRONG_WAKE_MILLIS = 300;

    /** The deadline of a decision in runs without faults: no clock step passes it. */
    private static final Duration NO_DEADLINE = Duration.ofDays(1);
    /** The deadline of a decision in runs with faults (on the injected ticker). */
    private static final Duration FAULT_DEADLINE = Duration.ofMillis(500);
    /** How long (real time) a freeze's requests get to answer once their deadlines have passed on the clock. */
    private static final long DEADLINE_ROUND_MILLIS = 2_000;
    /** What the contract allows for what Redis did after Sluice stopped waiting to be undone (real time). */
    private static final long RECOVERY_MILLIS = 1_000;

    /** {@code -Dsluice.model.trace=true} prints every compared decision, the engine's beside the model's. */
    private static final boolean TRACE = Boolean.getBoolean("sluice.model.trace");
    /** Bounds the hold ends one clock step visits (each sweep ends at least one hold, unless a call defers it). */
    private static final int MAX_SWEEP_ROUNDS = 10_000;

    private static final long WAIT_MILLIS = Durations.parse(EngineScenario.WAIT).orElseThrow().toMillis();

    private final EngineScenario scenario;
    private final MutableClock clock = MutableClock.startingNow();
    /** The scripts' time: the clock, standing still through a freeze and the undoing of what it queued. */
    private final RedisClock redisClock = new RedisClock(clock);
    private final String prefix = "model-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<Sluice> engines = new ArrayList<>();
    /** Each engine's backend, by the engine's index. */
    private final List<RedissonBackend> backends = new ArrayList<>();
    private final EngineModel model;
    private final WindowBounds bounds = new WindowBounds();
    private final Map<Integer, Admission> admitted = new LinkedHashMap<>();
    private final Map<Integer, Pending> pending = new LinkedHashMap<>();
    private final Map<String, Rule> concurrencyKeys = new LinkedHashMap<>();
    /**
     * The last override set of each rule and key and not cleared (null: one the rule refused), ended or not: a bound
     * holds the larger of its limit and the rule's. Setting and clearing start a new epoch of the bounds.
     */
    private final Map<String, PlanLimits> overridden = new HashMap<>();
    private final FaultInjector faults;
    private int step;
    private boolean stateLost;
    /** The clock's time at the last restart with empty state; waiters since before it may meet Redis down. */
    private long restartedAt = Long.MIN_VALUE;
    /** The clock's time at the last freeze's start; waiters since before it may be decided by the failure policy. */
    private long frozenAt = Long.MIN_VALUE;
    /** Ids of the requests made during freezes (negative: no step names them). */
    private int frozenIds = -1;
    private int decisions;
    private int stocked;

    /** A request whose admission has not completed: it waits for a concurrency permit. */
    private record Pending(Request request, long at, CompletableFuture<Admission> admission, long since) {
    }

    /** Redis freezes and restarts, for the runs with faults. */
    interface FaultInjector {
        void freeze();

        void thaw();

        void restartEmpty();
    }

    EngineScenarioRun(EngineScenario scenario, RedissonClient redis, FaultInjector faults) {
        this.scenario = scenario;
        this.faults = faults;
        Map<String, String> props = withSettings(scenario.rules());
        model = new EngineModel(RuleParser.parse(props));
        for (int i = 0; i < scenario.engines(); i++) {
            RedissonBackend backend = CallerClockBackends.on(redis, redisClock, Duration.ofSeconds(ANSWER_SECONDS));
            backends.add(backend);
            engines.add(Sluice.builder().properties(props).backend(backend).clock(clock).ticker(clock).build());
        }
    }

    private Map<String, String> withSettings(Map<String, String> rules) {
        Map<String, String> p = new HashMap<>(rules);
        p.put("sluice.key-prefix", prefix);
        // Deadlines run on the injected ticker: only a fault step passes one. A decision of a frozen Redis is a
        // rejection, which takes nothing, so the model still knows every counter.
        p.put("sluice.backend-timeout", deadline().toMillis() + "ms");
        if (faults != null) p.put("sluice.on-backend-failure", "deny");
        return p;
    }

    int decisions() {
        return decisions;
    }

    /** Requests after which their engine held a prefetched stock (a run's summary: prefetch, fixed or auto, was met). */
    int stocked() {
        return stocked;
    }

    /** Decisions the engines asked the backend for: fewer than the decisions once stocks pay (a run's summary). */
    long backendCalls() {
        long calls = 0;
        for (Sluice engine : engines) calls += engine.stats().backendCalls();
        return calls;
    }

    /** Runs every step, then ends every request; the first failure, or empty. */
    Optional<Failure> run() {
        try {
            for (step = 0; step < scenario.steps().size(); step++) {
                Failure f = apply(scenario.steps().get(step));
                if (f == null) f = collectWaiters(false);
                if (f != null) return Optional.of(f);
            }
            return Optional.ofNullable(endEverything());
        } catch (Exception e) {
            return Optional.of(new Failure("error", step, e.toString()));
        }
    }

    private Failure apply(Step s) throws Exception {
        if (s instanceof Advance a) {
            return advanceAsARunningServer(a.millis());
        }
        if (s instanceof Freeze f) return freeze(f);
        if (s instanceof Restart) {
            faults.restartEmpty();
            restartedAt = clock.millis();
            // The contract promises no count across lost state: from here, peaks, waiters and free permits only.
            stateLost = true;
            model.stateLost();
            bounds.newEpoch();
            // Every permit is free, as after releases: the waiters' next polls take them, and the run takes those in
            // before the next request, whose admission would otherwise seem to come first (476439885).
            return collectWaiters(true);
        }
        if (s instanceof Release r) return release(r.id());
        if (s instanceof Ended e) return ended(e);
        if (s instanceof Reload r) {
            Map<String, String> props = withSettings(scenario.reloads().get(r.index()));
            for (Sluice e : engines) e.reload(props);
            model.reload(RuleParser.parse(props));
            bounds.newEpoch();
            return null;
        }
        if (s instanceof Request r) return request(r);
        if (s instanceof SetOverride o) return override(o);
        if (s instanceof ClearOverride c) return clearOverride(c);
        throw new IllegalArgumentException(String.valueOf(s));
    }

    private Failure request(Request r) throws Exception {
        Sluice engine = engines.get(r.engine());
        long now = clock.millis();
        EngineModel.Verdict expected = model.request(r.id(), r.key(), r.plan(), r.path(), now);
        List<Rule> applicable = model.applicable(r.path());
        CompletableFuture<Admission> future = engine.admit(engineRules(engine, applicable), keysOf(engine, r)).toCompletableFuture();
        Admission a;
        try {
            a = expected.outcome() == EngineModel.Outcome.WAITING
                    ? answerOrWaiting(r.engine(), future) : future.get(ANSWER_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException waiting) {
            a = null;
        }
        decisions++;
        if (EngineProbe.held(engine.engine()) > 0) stocked++;
        if (a == null && !waits(applicable)) {
            return new Failure("no answer", step, r + ": no answer in " + ANSWER_SECONDS + " s, and no rule may make it wait");
        }
        if (scenario.exact() && !stateLost) {
            Failure f = compare(r, expected, a);
            if (f == null) f = compareUsage(r);
            if (f != null) return f;
        }
        if (a == null) {
            pending.put(r.id(), new Pending(r, now, future, System.nanoTime()));
            concurrency(r).ifPresent(c -> {
                ConcurrencyModel m = model.concurrency(c.rule().name(), c.key());
                if (m.holds(r.id())) m.release(r.id());
                m.await(r.id(), c.limit());
            });
            return null;
        }
        return settle(r, now, a);
    }

    /**
     * The answer of a request the model says waits, or null once its engine's backend holds it as a waiter: its rate
     * calls answered and its acquire's first try found no permit, so its acquire's deadline started at this clock time,
     * which {@link #waitEnd} counts from. A clock step while a call of it is still in flight (a loaded machine) would
     * start that deadline later, or pass a rate call's (476439885, 1970461317). A backend's waiters not answered yet
     * are the requests pending on its engine and this one; neither after {@link #ANSWER_SECONDS}: taken as waiting
     * (an engine waiting for a release of its key to land, say), as the pending requests are.
     */
    private Admission answerOrWaiting(int engine, CompletableFuture<Admission> future) throws Exception {
        long unanswered = pending.values().stream()
                .filter(p -> p.request().engine() == engine && !p.admission().isDone()).count();
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_SECONDS);
        try {
            // A wrong answer (admitted over the limit, rejected) gets as long to show as it always had.
            return future.get(WAITING_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException notYet) {
            // then: waiting once its engine says so
        }
        while (true) {
            try {
                return future.get(WAITER_LOOK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException notYet) {
                if (CallerClockBackends.waiting(backends.get(engine)) > unanswered) return null;
                if (System.nanoTime() - giveUp > 0) throw notYet;
            }
        }
    }

    /**
     * The request as the engine resolves it, from what a container would show of it: the caller's user and address,
     * its plan header and its path (so each rule's key, alternatives included, its cost, plan, when and exempt).
     */
    private static KeySource keysOf(Sluice engine, Request r) {
        return engine.keysOf(new CallerRequest(r));
    }

    /** A request of a scenario as a container shows it: {@link EngineModel#userOf}, {@link EngineModel#addressOf}. */
    private record CallerRequest(Request r) implements RequestView {
        @Override
        public String remoteAddress() {
            return EngineModel.addressOf(r.key());
        }

        @Override
        public List<String> headers(String name) {
            return name.equalsIgnoreCase("X-Plan") && r.plan() != null ? List.of(r.plan()) : List.of();
        }

        @Override
        public String queryString() {
            return null;
        }

        @Override
        public String cookie(String name) {
            return null;
        }

        @Override
        public String userName() {
            return EngineModel.userOf(r.key());
        }

        @Override
        public String sessionId() {
            return null;
        }

        @Override
        public String path() {
            return r.path();
        }
    }

    /**
     * Moves the clock as it passes on a server that runs: each prefetched stock's hold ends, and the engine's sweep
     * hands it back, before the clock goes on (a step of an hour would otherwise pass the loan's grace too, which
     * only a server stopped that long would do: its stock then counts as used); and each waiter's wait ends, the
     * engine decides it and gives back what it took, and the model likewise, before the clock goes on.
     */
    private Failure advanceAsARunningServer(long millis) throws Exception {
        settlePrefetches();
        long target = clock.millis() + millis;
        for (int round = 0; round < MAX_SWEEP_ROUNDS; round++) {
            long holdEnd = engines.stream().mapToLong(e -> EngineProbe.nextHoldEnd(e.engine())).min().orElse(Long.MAX_VALUE);
            long waitEnd = pending.values().stream().mapToLong(this::waitEnd).min().orElse(Long.MAX_VALUE);
            long next = Math.min(holdEnd, waitEnd);
            if (next > target) break;
            if (next > clock.millis()) clock.advance(Duration.ofMillis(next - clock.millis()));
            if (waitEnd <= holdEnd) {
                Failure f = waitsEnded();
                if (f != null) return f;
                continue;
            }
            for (Sluice e : engines) EngineProbe.sweep(e.engine()).join();
            settlePrefetches();
        }
        clock.advance(Duration.ofMillis(target - clock.millis()));
        return null;
    }

    /**
     * When (on the clock) the engine has given up waiting for a waiter's permit at the latest: its acquire's deadline,
     * {@code wait} plus the backend timeout, passed up to its hard bound ({@link Deadlines#hardBound}: a deadline waits
     * longer while the backend answers other calls). It then tries once more, and is admitted or rejected.
     */
    private long waitEnd(Pending p) {
        return p.at() + Deadlines.hardBound(deadline().plusMillis(WAIT_MILLIS)).toMillis();
    }

    /** The engines' backend timeout ({@link #withSettings}). */
    private Duration deadline() {
        return faults == null ? NO_DEADLINE : FAULT_DEADLINE;
    }

    /** Waits for the engine's answer to every waiter whose wait has ended on the clock, and takes them in. */
    private Failure waitsEnded() throws Exception {
        for (Pending p : List.copyOf(pending.values())) {
            if (waitEnd(p) > clock.millis()) continue;
            try {
                p.admission().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return new Failure("waiter", step, p.request() + ": no answer " + ANSWER_SECONDS + " s after its wait ended");
            }
        }
        return collectWaiters(false);
    }

    /**
     * Waits for the refills the engines' prefetchers have sent, so that a clock step never passes the deadline of
     * a call in flight (which a fault step alone may do).
     */
    private void settlePrefetches() {
        for (Sluice engine : engines) {
            for (Rule rule : engine.rules().all()) {
                if (!rule.limitsRate() || !rule.ratePolicy().prefetches()) continue;
                for (String caller : EngineScenario.CALLERS) {
                    String raw = EngineModel.keyOf(rule, caller);
                    if (raw != null) EngineProbe.settled(engine.engine(), rule, raw).join();
                }
            }
        }
    }

    /**
     * Redis stops answering while requests arrive at engine 0 and the ticker passes their deadline: each is decided
     * in bounded time, by {@code on-backend-failure=deny} (taking nothing), or from a prefetched stock as the model
     * decides. Redis then runs what it had queued;
     * within {@link #RECOVERY_MILLIS} the engines have undone it (a permit granted late is released, a stock taken
     * late handed back), so the run goes on comparing with the model, which saw none of these requests. Redis's time
     * stands still meanwhile ({@link RedisClock}): the clock moves only to pass the engines' deadlines.
     */
    private Failure freeze(Freeze f) throws Exception {
        settlePrefetches();
        List<Rule> applicable = model.applicable(EngineScenario.PATH);
        long longestWait = applicable.stream().mapToLong(rule -> rule.waitTime().toMillis()).max().orElse(0);
        List<Request> asked = new ArrayList<>();
        List<CompletableFuture<Admission>> during = new ArrayList<>();
        long at = clock.millis();
        int divisor = announced();
        Map<String, Long> shares = new HashMap<>();
        frozenAt = at;
        redisClock.standStill();
        faults.freeze();
        try {
            for (int i = 0; i < f.requests(); i++) {
                Request r = new Request(frozenIds--, 0, EngineScenario.KEYS.get(i % EngineScenario.KEYS.size()), null, EngineScenario.PATH);
                asked.add(r);
                during.add(engines.get(0).admit(engineRules(engines.get(0), applicable), keysOf(engines.get(0), r)).toCompletableFuture());
            }
            // A rule with a rate and a concurrency makes two calls.
            passDeadlines(during, 2 * applicable.size(), longestWait);
            long spanned = clock.millis() - at;
            for (int i = 0; i < during.size(); i++) {
                Admission a;
                try {
                    a = during.get(i).get(ANSWER_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    return new Failure("fault", step, "a request while Redis was frozen had no answer in " + ANSWER_SECONDS + " s");
                }
                if (!a.allowed()) continue;
                Request r = asked.get(i);
                if (decidedLocally(a)) {
                    Failure beyond = withinShare(r, a, shares, divisor, spanned);
                    if (beyond != null) return beyond;
                    continue;
                }
                // Admitted without Redis (a prefetched stock): a request the model must admit too, at the time it came.
                EngineModel.Verdict v = model.request(r.id(), r.key(), r.plan(), r.path(), at);
                if (v.outcome() != EngineModel.Outcome.ADMITTED && !stateLost) {
                    a.close();
                    return new Failure("fault", step, r + " admitted while Redis was frozen, the model " + v.outcome() + " by " + v.by());
                }
                Failure settled = settle(r, at, a);
                if (settled != null) return settled;
            }
        } finally {
            faults.thaw();
        }
        // Failed calls may have opened the circuit breaker: its cool-down passes (on the ticker, as everything else).
        clock.advance(Duration.ofMillis(EngineProbe.CIRCUIT_COOL_DOWN_MILLIS + 1));
        Thread.sleep(RECOVERY_MILLIS);
        // What Redis ran late and the engines undid is dated at the freeze's start, as one moment after a real thaw.
        settlePrefetches();
        Failure stranded = permitsBack();
        redisClock.goOn();
        return stranded;
    }

    /**
     * Moves the clock past the deadline (and the longest wait) of the frozen calls, once per call a request may still
     * make: a rule that admits by its share ({@code local}) passes the request on to the next rule's call,
     * whose deadline starts then. Stops as soon as every request has its answer.
     */
    private void passDeadlines(List<CompletableFuture<Admission>> during, int calls, long longestWait) throws Exception {
        CompletableFuture<Void> all = CompletableFuture.allOf(during.toArray(CompletableFuture<?>[]::new));
        for (int round = 0; round < calls && !all.isDone(); round++) {
            clock.advance(FAULT_DEADLINE.plusMillis(longestWait + 1));
            try {
                all.get(DEADLINE_ROUND_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException nextRuleCalled) {
                // A request went on to another rule's call: its deadline needs the clock moved again.
            }
        }
    }

    /**
     * Every engine announced to Redis after the others, so that each divides by the number of engines while Redis is
     * frozen ({@code on-backend-failure=local}); the divisor of engine 0, which the freeze's requests go to.
     */
    private int announced() throws Exception {
        for (int round = 0; round < 2; round++) {
            for (Sluice e : engines) EngineProbe.announce(e.engine()).get(ANSWER_SECONDS, TimeUnit.SECONDS);
        }
        return EngineProbe.localDivisor(engines.get(0).engine());
    }

    /** Whether a rule's on-backend-failure decided {@code a}'s concurrency (Redis did not answer). */
    private static boolean decidedWithoutRedis(Admission a) {
        return a.decisions().stream().anyMatch(d -> d.kind() == Decision.Kind.CONCURRENCY
                && (d.outcome() == Decision.Outcome.FAILED_LOCAL || d.outcome() == Decision.Outcome.BACKEND_FAILURE));
    }

    private static boolean decidedLocally(Admission a) {
        return a.decisions().stream().anyMatch(d -> d.outcome() == Decision.Outcome.FAILED_LOCAL);
    }

    /**
     * A request this server's share admitted while Redis was frozen ({@code local}): no rule's permits of one key above
     * its share (its capacity divided by the engines' divisor, at least 1; a rate's share once more for each of its
     * periods the freeze's decisions spanned; a concurrency's share in flight, all of them held until here). Redis kept
     * nothing of it, so the model is not told; a request that also took permits Redis counts (a prefetched stock) ends
     * the exact comparison, as lost state does. The request ends here.
     */
    private Failure withinShare(Request r, Admission a, Map<String, Long> shares, int divisor, long spannedMillis) {
        try {
            for (Decision d : a.decisions()) {
                if (d.outcome() != Decision.Outcome.FAILED_LOCAL) {
                    if (!stateLost) {
                        stateLost = true;
                        model.stateLost();
                        bounds.newEpoch();
                    }
                    continue;
                }
                Rule rule = d.rule();
                long bound;
                if (d.kind() == Decision.Kind.CONCURRENCY) {
                    bound = Math.max(1, rule.concurrency() / divisor);
                } else {
                    long permits = rule.rate().orElseThrow().permits();
                    var policy = rule.ratePolicy();
                    long capacity = Math.max(policy.burstFor(permits), policy.throttling() == Throttling.ELASTIC
                            ? permits : policy.effectiveLimit(permits));
                    long periods = 1 + (spannedMillis + rule.rate().get().period().toMillis() - 1) / rule.rate().get().period().toMillis();
                    bound = Math.max(1, capacity / divisor) * periods;
                }
                String counter = d.kind() + " " + rule.name() + "|" + r.key();
                long taken = shares.merge(counter, d.kind() == Decision.Kind.RATE ? d.cost() : 1, Long::sum);
                if (taken > bound) {
                    return new Failure("fault", step, r + ": " + counter + " admitted " + taken + " while Redis was frozen, above"
                            + " this server's share " + bound + " (divisor " + divisor + ")");
                }
            }
            return null;
        } finally {
            a.close();
        }
    }

    /** Every concurrency permit not held by a request the model has in flight is free (rules without plans). */
    private Failure permitsBack() throws Exception {
        for (Map.Entry<String, Rule> e : concurrencyKeys.entrySet()) {
            Optional<Rule> now = engines.get(0).rules().get(e.getValue().name());
            if (now.isEmpty() || now.get().plans().any()) continue;
            String[] rk = e.getKey().split("\\|", 2);
            // Each engine's answer waits for the releases it has sent; the last one has seen them all.
            for (Sluice engine : engines) engine.availablePermits(now.get(), rk[1]).toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            int free = engines.get(0).availablePermits(now.get(), rk[1]).toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            int expected = Math.max(0, now.get().concurrency() - model.concurrency(rk[0], rk[1]).inFlight());
            if (free != expected) {
                return new Failure("stranded", step, e.getKey() + ": " + free + " of " + now.get().concurrency()
                        + " permits free with " + model.concurrency(rk[0], rk[1]).inFlight() + " requests in flight, " + expected + " expected");
            }
        }
        return null;
    }

    /** The engine's own rule objects for the names the model applies (a reload gives each engine its own). */
    private static List<Rule> engineRules(Sluice engine, List<Rule> applicable) {
        List<Rule> out = new ArrayList<>();
        for (Rule rule : applicable) out.add(engine.rules().get(rule.name()).orElseThrow());
        return out;
    }

    private static boolean waits(List<Rule> applicable) {
        return applicable.stream().anyMatch(rule -> rule.limitsConcurrency() && !rule.waitTime().isZero());
    }

    /**
     * {@code Sluice.usage} of the request's key beside the model's, for every rate rule it applies to whose usage the
     * model knows exactly: not prefetching (this server's stock is out of Redis), not elastic, without plans (a key on
     * a plan is counted against the plan's limit), and while no request waits (a wait may end, and its rate permits go
     * back, at any moment of the step).
     */
    private Failure compareUsage(Request r) throws Exception {
        if (!pending.isEmpty()) return null;
        Sluice engine = engines.get(r.engine());
        long now = clock.millis();
        for (Rule rule : model.applicable(r.path())) {
            if (!rule.limitsRate() || rule.ratePolicy().prefetches() || rule.ratePolicy().throttling() == Throttling.ELASTIC
                    || !rule.plans().equals(Plans.NONE)) continue;
            // A rule that does not limit this caller (when, exempt) has no key of theirs to compare.
            if (EngineModel.keyOf(rule, r.key()) == null) continue;
            // The key as the engine resolves it (key=user|ip names the alternative), as an operator would ask for it.
            String resolved = keysOf(engine, r).keyFor(engine.rules().get(rule.name()).orElseThrow());
            if (resolved == null) continue;
            Usage u = engine.usage(rule.name(), resolved).toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            EngineModel.KeyUsage want = model.usage(rule, r.key(), now);
            if (want == null || u.rate().isEmpty()) {
                // An override of unlimited: no rate applies to the key, on either side.
                if (want == null && u.rate().isEmpty()) continue;
                return new Failure("usage", step, r + " at " + now + " ms: usage of " + rule.name() + " has a rate part "
                        + u.rate().isPresent() + "; the model " + (want != null));
            }
            if (u.rate().orElseThrow().remaining() != want.remaining() || u.blocked().toMillis() != want.blockedMillis()) {
                return new Failure("usage", step, r + " at " + now + " ms: usage of " + rule.name() + " says remaining "
                        + u.rate().orElseThrow().remaining() + ", blocked " + u.blocked().toMillis() + " ms; the model "
                        + want.remaining() + ", " + want.blockedMillis() + " ms");
            }
        }
        return null;
    }

    /** Exactly the model's decisions: the outcome, the rule that rejected, each rate rule's decision and Remaining. */
    private Failure compare(Request r, EngineModel.Verdict expected, Admission a) {
        String actual;
        if (a == null) actual = "WAITING";
        else if (a.allowed()) actual = "ADMITTED";
        else actual = "REJECTED by " + a.rejection().orElseThrow().ruleName();
        String wanted = expected.outcome() + (expected.outcome() == EngineModel.Outcome.REJECTED ? " by " + expected.by() : "");
        List<String> got = new ArrayList<>();
        if (a != null) {
            for (Decision d : a.decisions()) {
                if (d.outcome() != Decision.Outcome.DECIDED) {
                    return new Failure("not decided", step, r + ": " + d.ruleName() + " decided by " + d.outcome() + " with no fault");
                }
                got.add(d.kind() == Decision.Kind.RATE
                        ? new EngineModel.RuleVerdict(d.ruleName(), true, d.allowed(), d.remaining()).toString()
                        : new EngineModel.RuleVerdict(d.ruleName(), false, d.allowed(), 0).toString());
            }
        }
        List<String> want = new ArrayList<>();
        for (EngineModel.RuleVerdict v : expected.rules()) {
            want.add((v.rate() ? v : new EngineModel.RuleVerdict(v.rule(), false, v.allowed(), 0)).toString());
        }
        if (a == null) want.clear();
        if (TRACE) System.out.println("step " + step + " " + r + " at " + clock.millis() + ": engine " + actual + " " + got + ", model " + wanted + " " + want);
        if (!actual.equals(wanted) || !got.equals(want)) {
            return new Failure("exact", step, r + " at " + (clock.millis()) + " ms: engine " + actual + " " + got
                    + ", the model " + wanted + " " + want);
        }
        return null;
    }

    /** A concurrency rule that applies to the request under its plan: the counted key and the plan's limit. */
    private record Limited(Rule rule, String key, int limit) {
    }

    private Optional<Limited> concurrency(Request r) {
        for (Rule rule : model.applicable(r.path())) {
            String key = EngineModel.keyOf(rule, r.key());
            if (!rule.limitsConcurrency() || key == null) continue;
            Rule limits = model.limitsOf(rule, r.key(), r.plan(), false, clock.millis());
            // A waiter stays judged by the limit it started waiting under, though an override exempts its key since.
            Integer waitedUnder = model.concurrency(rule.name(), key).waiting().get(r.id());
            if (limits == null && waitedUnder == null) continue;
            int limit = limits == null ? waitedUnder : limits.concurrency();
            concurrencyKeys.put(rule.name() + "|" + key, rule);
            return Optional.of(new Limited(rule, key, limit));
        }
        return Optional.empty();
    }

    /** Takes a completed admission into the model's concurrency and the window bounds. */
    private Failure settle(Request r, long at, Admission a) {
        Optional<Limited> c = concurrency(r);
        if (!a.allowed()) {
            c.ifPresent(l -> model.concurrency(l.rule().name(), l.key()).release(r.id()));
            return null;
        }
        admitted.put(r.id(), a);
        // Admitted by the failure policy (a waiter whose poll met Redis restarting, or whose wait a freeze ended): Redis
        // holds nothing of it, so it counts against no request Redis admits, as a freeze's requests decided by the
        // share (withinShare). Its rate permits, which Redis decided before, still count.
        if (c.isPresent() && decidedWithoutRedis(a)) {
            model.concurrency(c.get().rule().name(), c.get().key()).release(r.id());
        } else if (c.isPresent()) {
            ConcurrencyModel m = model.concurrency(c.get().rule().name(), c.get().key());
            if (!m.holds(r.id())) {
                // A waiter is judged by the limit it started waiting under (docs/reload.md), a reload since or not.
                int limit = m.waiting().getOrDefault(r.id(), c.get().limit());
                if (!m.fits(limit)) {
                    return new Failure("peak", step, r + " admitted by " + c.get().rule().name() + " with " + m.inFlight()
                            + " in flight already, its plan's limit " + limit + " (waiting, id=limit: " + m.waiting() + ")");
                }
                m.hold(r.id());
            }
        }
        // Stocks prefetched before Redis lost its state are still spent after it: no bound holds across the loss.
        if (stateLost) return null;
        for (Decision d : a.decisions()) {
            if (d.kind() != Decision.Kind.RATE || !d.allowed() || d.outcome() != Decision.Outcome.DECIDED) continue;
            Rule rule = bounded(model.rules().get(d.ruleName()).orElseThrow(), r.key());
            if (rule == null) continue;
            Optional<Rule> capacity = rule.ratePolicy().capacity().flatMap(model.rules()::get);
            String exceeded = bounds.admitted(rule, EngineModel.keyOf(rule, r.key()), rule.ratePolicy().costFor(r.path()), at, capacity);
            if (exceeded != null) return new Failure("bound", step, r + ": " + exceeded);
        }
        return null;
    }

    /**
     * A request ends with a status and a report: the engine settles each rule that settles from a header at the report
     * and is told the ending (as the filter does), the model likewise, then the request is released.
     */
    private Failure ended(Ended e) throws Exception {
        Admission a = admitted.get(e.id());
        if (a == null) return release(e.id());
        long now = clock.millis();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (Decision d : a.decisions()) {
            if (d.kind() == Decision.Kind.RATE && d.rule().settle().fromHeader() && e.reported() >= 0) {
                done.add(a.settle(d.ruleName(), e.reported()).toCompletableFuture());
            }
        }
        done.add(a.end(Ending.status(e.status())).toCompletableFuture());
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
        for (EngineModel.GivenBack g : model.end(e.id(), Ending.status(e.status()), e.reported(), now)) {
            if (!stateLost) bounds.givenBack(g.rule(), g.key(), g.permits(), g.admittedAt());
        }
        return release(e.id());
    }

    private Failure release(int id) throws Exception {
        Admission a = admitted.remove(id);
        if (a == null) return null;
        a.close();
        model.release(id);
        return collectWaiters(true);
    }

    /**
     * Takes in the waiters the engines have admitted; with {@code wake}, while a waiter may take a free permit,
     * waits for the engines to admit one.
     */
    private Failure collectWaiters(boolean wake) throws Exception {
        while (true) {
            for (Pending p : inAnOrderTheEngineCouldHave(pending.values())) {
                pending.remove(p.request().id());
                Admission a = p.admission().join();
                long waited = clock.millis() - p.at();
                // A waiter whose poll met Redis restarting, or frozen, is decided by the failure policy, as any call then.
                boolean byPolicy = (p.at() <= restartedAt || p.at() <= frozenAt) && decidedWithoutRedis(a);
                if (!a.allowed() && !byPolicy && waited < WAIT_MILLIS
                        && System.nanoTime() - p.since() < TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS) * 2 / 3) {
                    return new Failure("waiter", step, p.request() + " rejected while it waited (its wait is " + EngineScenario.WAIT + "): "
                            + a.rejection().orElseThrow());
                }
                if (!a.allowed()) waitEnded(p.request().id());
                Failure f = settle(p.request(), p.at(), a);
                if (f != null) return f;
            }
            if (!wake) return null;
            Optional<String> fits = concurrencyKeys.keySet().stream().filter(k -> {
                String[] rk = k.split("\\|", 2);
                return model.concurrency(rk[0], rk[1]).aWaiterFits();
            }).findFirst();
            if (pending.isEmpty()) return null;
            if (fits.isEmpty()) {
                // No waiter may go in: give a wrong wake-up (a waiter over its own plan's limit) time to show.
                try {
                    CompletableFuture.anyOf(pending.values().stream().map(Pending::admission).toArray(CompletableFuture[]::new))
                            .get(WRONG_WAKE_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    return null;
                }
                wake = false;
                continue;
            }
            try {
                CompletableFuture.anyOf(pending.values().stream().map(Pending::admission).toArray(CompletableFuture[]::new))
                        .get(WAKE_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                String[] rk = fits.get().split("\\|", 2);
                ConcurrencyModel m = model.concurrency(rk[0], rk[1]);
                return new Failure("wake", step, "no waiter of " + fits.get() + " admitted within " + WAKE_SECONDS
                        + " s though a permit one may take is free: " + m.inFlight() + " in flight, waiting (id=plan limit) " + m.waiting());
            }
        }
    }

    /**
     * A waiter's wait ended without a permit: the model gives back the rate permits it took when it came, as the engine
     * does (CONTRACT.md, Evaluation), when the run sees it. The engine ends a wait on its ticker (the deadline, past its
     * wait) or on real time (its wait); its refund may come at an earlier clock than this one when a clock step passed
     * several hold ends (a refund of a log or a bucket does not depend on when it comes; a window's counter does, at
     * its window's edge).
     */
    private void waitEnded(int id) {
        for (EngineModel.GivenBack g : model.waitEnded(id, clock.millis())) {
            if (!stateLost) bounds.givenBack(g.rule(), g.key(), g.permits(), g.admittedAt());
        }
    }

    /**
     * The waiters the engine has answered, in an order it could have answered them in: the run cannot tell in which
     * order waiters answered between two of its looks were admitted (a release, or a Redis restarted empty, may wake
     * several at once), so those rejected first (they hold nothing), then the admitted by their limit, smallest first: if
     * any order admitted each under its own limit, this one does.
     */
    private List<Pending> inAnOrderTheEngineCouldHave(Collection<Pending> waiting) {
        List<Pending> answered = new ArrayList<>();
        for (Pending p : waiting) if (p.admission().isDone()) answered.add(p);
        answered.sort(Comparator.comparingInt(this::admittedUnder));
        return answered;
    }

    /** The limit a waiter the engine answered was admitted under; -1 when rejected. */
    private int admittedUnder(Pending p) {
        Admission a = p.admission().join();
        if (!a.allowed()) return -1;
        return concurrency(p.request()).map(l -> model.concurrency(l.rule().name(), l.key()).waiting()
                .getOrDefault(p.request().id(), l.limit())).orElse(Integer.MAX_VALUE);
    }

    /** Ends every request (waiters are admitted as permits free), then every permit must be free. */
    private Failure endEverything() throws Exception {
        step = scenario.steps().size();
        while (!admitted.isEmpty() || !pending.isEmpty()) {
            if (admitted.isEmpty()) {
                Failure f = collectWaiters(true);
                if (f != null) return f;
                if (admitted.isEmpty()) return new Failure("wake", step, "waiters left with nothing in flight: " + pending.keySet());
            }
            Failure f = release(admitted.keySet().iterator().next());
            if (f != null) return f;
        }
        for (Map.Entry<String, Rule> e : concurrencyKeys.entrySet()) {
            Optional<Rule> now = engines.get(0).rules().get(e.getValue().name());
            if (now.isEmpty()) continue;
            String key = e.getKey().split("\\|", 2)[1];
            // Each engine's answer waits for the releases it has sent; the last one has seen them all.
            for (Sluice engine : engines) engine.availablePermits(now.get(), key).toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            int free = engines.get(0).availablePermits(now.get(), key).toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            if (free != now.get().concurrency()) {
                return new Failure("stranded", step, e.getKey() + ": " + free + " of " + now.get().concurrency()
                        + " permits free once every request has ended");
            }
        }
        return null;
    }

    /**
     * An operator's override, set on one engine (applied there once stored) and applied by every other at its poll,
     * which the run drives; the model applies it at once. A stretch of the bounds never spans it.
     */
    private Failure override(SetOverride o) {
        long now = clock.millis();
        // The engine is told the key as the rule resolves the caller's request (a user, an address, user=alice).
        String key = model.rules().get(o.rule()).map(rule -> EngineModel.keyOf(rule, o.key())).orElse(null);
        if (key == null) return null;
        try {
            engines.get(o.engine()).override(o.rule(), key, o.limit(), Duration.ofMillis(o.ttlMillis())).toCompletableFuture().join();
        } catch (IllegalArgumentException refused) {
            // A limit the rule cannot take (under its costliest request, say): nothing changed, as for the model.
            return null;
        }
        pollOverrides();
        model.override(o.rule(), o.key(), o.limit(), now + o.ttlMillis());
        bounds.newEpoch();
        model.rules().get(o.rule()).ifPresent(rule -> overridden.put(o.rule() + "|" + EngineModel.keyOf(rule, o.key()),
                model.overrideOf(rule, o.key(), now)));
        return null;
    }

    private Failure clearOverride(ClearOverride c) {
        String key = model.rules().get(c.rule()).map(rule -> EngineModel.keyOf(rule, c.key())).orElse(null);
        if (key == null) return null;
        engines.get(c.engine()).clearOverride(c.rule(), key).toCompletableFuture().join();
        pollOverrides();
        model.clearOverride(c.rule(), c.key());
        bounds.newEpoch();
        model.rules().get(c.rule()).ifPresent(rule -> overridden.remove(c.rule() + "|" + EngineModel.keyOf(rule, c.key())));
        return null;
    }

    private void pollOverrides() {
        for (Sluice e : engines) e.pollOverrides().toCompletableFuture().join();
    }

    /**
     * The rule whose bound a key's admissions are held to: with an override, the larger of its rate (and burst) and
     * the rule's (the override may have ended); null for an unlimited override (no bound).
     */
    private Rule bounded(Rule rule, String key) {
        PlanLimits o = overridden.get(rule.name() + "|" + EngineModel.keyOf(rule, key));
        if (o == null) return rule;
        if (o.rateUnlimited()) return null;
        if (o.rate().isEmpty()) return rule;
        Rate own = rule.rate().orElseThrow();
        long permits = Math.max(own.permits(), o.rate().get().permits());
        long burst = 0;
        if (rule.ratePolicy().algorithm() == Algorithm.TOKEN_BUCKET) {
            burst = Math.max(rule.ratePolicy().burst() > 0 ? rule.ratePolicy().burst() : own.permits(), o.rate().get().permits());
        }
        return new PlanLimits("bound", Optional.of(new Rate(permits, own.period())), false, burst, 0, false).applyTo(rule);
    }

    @Override
    public void close() {
        pending.values().forEach(p -> p.admission().thenAccept(Admission::close));
        admitted.values().forEach(Admission::close);
        engines.forEach(Sluice::close);
    }
}
