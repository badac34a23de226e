package io.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.sluice.Decision;
import io.sluice.engine.EngineListener;
import io.sluice.rule.Rule;

import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;

/**
 * One engine's Micrometer meters, fed by the engine's {@link EngineListener} seam. Tags are rule names,
 * limit types and fixed outcomes only: a key value (an address, a user) never becomes a tag, so the number
 * of series is bounded by the rules file. Meters are registered on first use and removed when the engine
 * closes. Thread-safe; the per-request path is a map lookup and an increment.
 */
final class SluiceMeters implements EngineListener {
    static final String REQUESTS = "sluice.requests";
    static final String BACKEND_CALLS = "sluice.backend.calls";
    static final String CIRCUIT_OPEN = "sluice.circuit.open";
    static final String SHIELD_REJECTIONS = "sluice.shield.rejections";
    static final String PERMITS_HELD = "sluice.permits.held";

    /** The {@code result} tag of {@code sluice.requests}, as the contract names its values. */
    enum Result {
        ALLOWED, REJECTED, DRY_RUN_REJECTED, FAILED_OPEN, FAILED_CLOSED, SKIPPED, EXEMPT, FAILED_LOCAL;

        final String tag = name().toLowerCase(Locale.ROOT);
    }

    private static final int RESULTS = Result.values().length;
    private static final int KINDS = Decision.Kind.values().length;

    private final MeterRegistry registry;
    /** Every meter this engine registered, removed from the registry on close. */
    private final Queue<Meter> registered = new ConcurrentLinkedQueue<>();
    /** Per rule name: its {@code sluice.requests} counters by kind and result, registered on first use. */
    private final Map<String, AtomicReferenceArray<Counter>> requests = new ConcurrentHashMap<>();
    private final Map<String, Counter> shielded = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> held = new ConcurrentHashMap<>();
    /** By {@link CallOutcome} ordinal, registered on first use. */
    private final AtomicReferenceArray<Timer> calls = new AtomicReferenceArray<>(CallOutcome.values().length);

    /** Registers nothing yet: an engine whose build fails after this leaves no meter behind. */
    private SluiceMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Meters in {@code registry}, or in {@link Metrics#globalRegistry} when it is null. */
    static SluiceMeters in(Object registry) {
        return new SluiceMeters(registry == null ? Metrics.globalRegistry : (MeterRegistry) registry);
    }

    @Override
    public void decided(Decision decision, Source source) {
        Result result = switch (source) {
            case BACKEND_FAILURE, CIRCUIT_OPEN -> decision.outcome() == Decision.Outcome.FAILED_LOCAL ? Result.FAILED_LOCAL
                    : decision.allowed() ? Result.FAILED_OPEN : Result.FAILED_CLOSED;
            default -> decision.allowed() ? Result.ALLOWED
                    : decision.rule().dryRun() ? Result.DRY_RUN_REJECTED : Result.REJECTED;
        };
        count(decision.rule(), decision.kind(), result);
        if (source == Source.SHIELD) {
            shielded.computeIfAbsent(decision.ruleName(), name -> keep(Counter.builder(SHIELD_REJECTIONS)
                    .description("Rate rejections the attack shield answered without asking the backend")
                    .tag("rule", name)
                    .register(registry))).increment();
        }
    }

    @Override
    public void skipped(Rule rule, Decision.Kind kind) {
        count(rule, kind, Result.SKIPPED);
    }

    @Override
    public void exempt(Rule rule, Decision.Kind kind) {
        count(rule, kind, Result.EXEMPT);
    }

    @Override
    public void backendCalled() {
        // Counted, with its duration, by backendAnswered.
    }

    @Override
    public void backendAnswered(CallOutcome outcome, long nanos) {
        Timer t = calls.get(outcome.ordinal());
        if (t == null) {
            t = keep(Timer.builder(BACKEND_CALLS)
                    .description("Decision calls to the backend (Redis), by how they ended; a waiting acquire includes its wait")
                    .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .register(registry));
            calls.set(outcome.ordinal(), t);
        }
        t.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void permitTaken(Rule rule) {
        held.computeIfAbsent(rule.name(), name -> {
            AtomicLong permits = new AtomicLong();
            keep(Gauge.builder(PERMITS_HELD, permits, AtomicLong::get)
                    .description("Concurrency permits this server holds now")
                    .tag("rule", name)
                    .strongReference(true)
                    .register(registry));
            return permits;
        }).incrementAndGet();
    }

    @Override
    public void permitReturned(Rule rule) {
        AtomicLong permits = held.get(rule.name());
        if (permits != null) permits.decrementAndGet();
    }

    @Override
    public void watchCircuit(BooleanSupplier open) {
        keep(Gauge.builder(CIRCUIT_OPEN, open, o -> o.getAsBoolean() ? 1 : 0)
                .description("1 while the circuit breaker in front of the backend is open (the backend is skipped), else 0")
                .strongReference(true)
                .register(registry));
    }

    @Override
    public void engineClosed() {
        for (Meter m; (m = registered.poll()) != null; ) registry.remove(m);
    }

    private void count(Rule rule, Decision.Kind kind, Result result) {
        AtomicReferenceArray<Counter> byRule = requests.computeIfAbsent(rule.name(),
                name -> new AtomicReferenceArray<>(KINDS * RESULTS));
        int index = kind.ordinal() * RESULTS + result.ordinal();
        Counter c = byRule.get(index);
        if (c == null) {
            // Registration is idempotent: two threads racing here get the same counter.
            c = keep(Counter.builder(REQUESTS)
                    .description("Decisions of each rule, by limit type and result")
                    .tag("rule", rule.name())
                    .tag("type", kind.name().toLowerCase(Locale.ROOT))
                    .tag("result", result.tag)
                    .register(registry));
            byRule.set(index, c);
        }
        c.increment();
    }

    private <M extends Meter> M keep(M meter) {
        registered.add(meter);
        return meter;
    }
}
