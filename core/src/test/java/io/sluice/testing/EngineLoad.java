package io.sluice.testing;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.FailurePolicy;
import io.sluice.rule.Rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Steady traffic through an engine, as a servlet filter would send it: a few threads, each deciding one request
 * at a time under one of the given rules and a key from a small set, paced by a short pause. Records the time
 * each decision took into the current {@link Latencies} sink, and counts what broke a promise: a decision that
 * threw, one that took more than 5 s, and a failure decision that did not follow its rule's
 * {@code on-backend-failure}. Concurrency permits are held for a moment and then returned.
 */
public final class EngineLoad implements AutoCloseable {
    private final Sluice sluice;
    private final List<Rule> rules;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    private final AtomicReference<Latencies> sink = new AtomicReference<>(new Latencies());
    public final AtomicLong decisions = new AtomicLong();
    public final AtomicLong decided = new AtomicLong();
    public final AtomicLong backendFailures = new AtomicLong();
    public final AtomicLong errors = new AtomicLong();
    public final AtomicLong policyViolations = new AtomicLong();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    /** Per rule name: decisions made by the backend, those of them allowed, and failure decisions. */
    private final Map<String, LongAdder> decidedByRule = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> allowedByRule = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> failuresByRule = new ConcurrentHashMap<>();

    private EngineLoad(Sluice sluice, List<Rule> rules, int threads, int keys) {
        this.sluice = sluice;
        this.rules = rules;
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> loop(keys), "engine-load-" + i);
            t.setDaemon(true);
            this.threads.add(t);
        }
        this.threads.forEach(Thread::start);
    }

    /** Starts {@code threads} threads deciding under the named rules, with keys {@code k0..k<keys-1>}. */
    public static EngineLoad start(Sluice sluice, int threads, int keys, String... ruleNames) {
        return start(sluice, threads, keys, List.of(ruleNames));
    }

    /** As {@link #start(Sluice, int, int, String...)}. */
    public static EngineLoad start(Sluice sluice, int threads, int keys, List<String> ruleNames) {
        List<Rule> rules = new ArrayList<>();
        for (String name : ruleNames) rules.add(sluice.rules().get(name).orElseThrow());
        return new EngineLoad(sluice, rules, threads, keys);
    }

    /** Records from now on into a fresh sink, and returns it. */
    public Latencies measure() {
        Latencies fresh = new Latencies();
        sink.set(fresh);
        return fresh;
    }

    public Throwable firstError() {
        return firstError.get();
    }

    private void loop(int keys) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running) {
            Rule rule = rules.get(random.nextInt(rules.size()));
            String key = "k" + random.nextInt(keys);
            long start = System.nanoTime();
            try {
                Admission a = sluice.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().get(5, TimeUnit.SECONDS);
                sink.get().record(System.nanoTime() - start);
                decisions.incrementAndGet();
                for (Decision d : a.decisions()) {
                    if (d.outcome() == Decision.Outcome.DECIDED) {
                        decided.incrementAndGet();
                        count(decidedByRule, d.ruleName());
                        if (d.allowed()) count(allowedByRule, d.ruleName());
                    }
                    if (d.outcome() == Decision.Outcome.BACKEND_FAILURE) {
                        backendFailures.incrementAndGet();
                        count(failuresByRule, d.ruleName());
                        if (d.allowed() != (d.rule().onBackendFailure() == FailurePolicy.ALLOW)) policyViolations.incrementAndGet();
                    }
                }
                if (a.allowed() && rule.limitsConcurrency()) Thread.sleep(1); // a short request holding its permit
                a.close();
                Thread.sleep(2); // pacing: a steady few hundred decisions per second per thread
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, e);
            }
        }
    }

    private static void count(Map<String, LongAdder> counts, String rule) {
        counts.computeIfAbsent(rule, r -> new LongAdder()).increment();
    }

    private static long read(Map<String, LongAdder> counts, String rule) {
        LongAdder n = counts.get(rule);
        return n == null ? 0 : n.sum();
    }

    /** Decisions under {@code rule} the backend made. */
    public long decided(String rule) {
        return read(decidedByRule, rule);
    }

    /** Decisions under {@code rule} the backend made and allowed. */
    public long allowed(String rule) {
        return read(allowedByRule, rule);
    }

    /** Decisions under {@code rule} that the failure policy made (timed out, failed, or skipped by the open circuit). */
    public long backendFailures(String rule) {
        return read(failuresByRule, rule);
    }

    /** Stops the threads and waits for them (at most 10 s). */
    @Override
    public void close() {
        running = false;
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
