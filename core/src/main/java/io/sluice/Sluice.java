package io.sluice;

import io.sluice.internal.DecisionListener;
import io.sluice.internal.DecisionListeners;
import io.sluice.internal.Log;
import io.sluice.internal.ThrottledLog;
import io.sluice.internal.Ticker;
import io.sluice.key.KeyResolver;
import io.sluice.key.RequestView;
import io.sluice.memory.InMemoryBackend;
import io.sluice.micrometer.Micrometer;
import io.sluice.redisson.RedissonBackend;
import io.sluice.redisson.RedissonClients;
import io.sluice.rule.Durations;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.spi.LimiterBackend;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
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
    private static final Log LOG = Log.of(Sluice.class);
    /** A warning of one topic (a rule's backend failures, say) is logged at most this often. */
    private static final long WARN_AT_MOST_EVERY_MILLIS = 10_000;
    /** How often decisions past their deadline are failed: a deadline fires at most this late. */
    private static final long DEADLINE_SWEEP_MILLIS = 10;
    /** While start-up waits for the backend, a failed connection attempt is followed by another this often. */
    private static final long AWAIT_RETRY_MILLIS = 1_000;

    private final RuleSet rules;
    private final LimiterBackend backend;
    private final KeyResolver resolver;
    private final EngineScheduler scheduler = new EngineScheduler();
    private final StatsRecorder stats = new StatsRecorder();
    private final DecisionListener listener;
    private final Admitter admitter;
    private final Leases leases;
    private final ClockSkewMonitor clockSkew;

    private Sluice(RuleSet rules, LimiterBackend backend, Clock clock, Ticker ticker, Optional<DecisionListener> meters) {
        this.rules = rules;
        this.backend = backend;
        this.listener = meters.map(m -> DecisionListeners.of(List.of(stats, m))).orElse(stats);
        this.resolver = new KeyResolver(rules.settings().trustedProxies(), rules.settings().clientAddressHeader());
        ThrottledLog log = new ThrottledLog(LOG, WARN_AT_MOST_EVERY_MILLIS, ticker);
        KeyNaming naming = new KeyNaming(rules.settings().keyPrefix());
        BackendGuard guard = new BackendGuard(rules.settings().backendTimeout(), ticker, listener, log);
        this.leases = new Leases(backend, guard, naming, scheduler, log, listener);
        // Elastic rules find their capacity rule in the rules of the moment (this::rules), not those of start-up.
        RateDecider rates = new RateDecider(backend, guard, naming, ticker, listener, scheduler, this::rules);
        this.admitter = new Admitter(rates, leases, listener, log, rules.settings().headers());
        this.clockSkew = new ClockSkewMonitor(backend, clock, ticker, rules.settings().maxClockSkew(), scheduler, log);
        clockSkew.start();
        scheduler.withFixedDelay(guard::sweep, DEADLINE_SWEEP_MILLIS, DEADLINE_SWEEP_MILLIS);
    }

    /**
     * A Sluice for the properties of a rules file, on the Redis they name.
     *
     * @param properties the {@code sluice.*} properties
     * @return the engine; close it on shutdown
     */
    public static Sluice fromProperties(Map<String, String> properties) {
        return builder().properties(properties).build();
    }

    /**
     * A Sluice for the properties of a rules file, on the Redis they name.
     *
     * @param properties the {@code sluice.*} properties
     * @return the engine; close it on shutdown
     */
    public static Sluice fromProperties(Properties properties) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) map.put(name, properties.getProperty(name));
        return fromProperties(map);
    }

    /**
     * A builder, to choose the backend, the clock or the class loader.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The parsed rules file.
     *
     * @return the rules and global settings
     */
    public RuleSet rules() {
        return rules;
    }

    /**
     * Key values of a request, resolved by each rule's {@code key}; a rate rule's cost from its {@code costs}
     * for the request's {@link RequestView#path() path}.
     *
     * @param request the request, as an adapter sees it
     * @return the key and cost of each rule for this request
     */
    public KeySource keysOf(RequestView request) {
        return new KeySource() {
            @Override
            public String keyFor(Rule rule) {
                return resolver.resolve(rule.key(), request);
            }

            @Override
            public long costFor(Rule rule) {
                String path = request.path();
                return path == null ? rule.ratePolicy().cost() : rule.ratePolicy().costFor(path);
            }
        };
    }

    /**
     * Decides a request under the given rules (in name order). The returned admission must be closed when
     * the request ends, rejected or not. The stage never completes exceptionally for backend failures.
     *
     * @param applicable the rules that apply, in name order
     * @param keys       the key value of each rule
     * @return the admission, once every rule has decided
     */
    public CompletionStage<Admission> admit(List<Rule> applicable, KeySource keys) {
        return admitter.admit(applicable, keys);
    }

    /**
     * This server's clock minus the backend's, as last measured (at start and every minute), or empty before
     * the first measurement or for a backend without a clock. Both Redisson primitives trust this server's
     * clock, so a skew beyond {@code sluice.max-clock-skew} is logged.
     *
     * @return the last measured skew
     */
    public Optional<Duration> clockSkew() {
        return clockSkew.skew();
    }

    /**
     * Whether the backend has made its first connection (always true for the in-memory backend): for health
     * checks. Until it has, every decision follows its rule's {@code on-backend-failure}. Asking retries a
     * failed connection attempt (at most once a second), so polling sees Redis come up without any request.
     * After the first connection, Redisson reconnects by itself; an outage then shows in the circuit breaker
     * (the {@code sluice.circuit.open} gauge) and in {@link #stats()}.
     *
     * @return whether the backend is connected
     */
    public boolean connected() {
        return backend.connected();
    }

    /**
     * Counts of decisions since this engine started.
     *
     * @return a snapshot of the counts
     */
    public Stats stats() {
        return stats.snapshot();
    }

    /**
     * Concurrency permits of the rule that are free now for the raw key value (for monitoring and tests).
     *
     * @param rule   a concurrency rule
     * @param rawKey the key value as resolved ({@code *} for {@code global})
     * @return the free permits
     */
    public CompletionStage<Integer> availablePermits(Rule rule, String rawKey) {
        return leases.available(rule, rawKey);
    }

    /**
     * Stops lease renewal and closes the backend (and the Redis client, when Sluice created it). Returns once
     * Sluice's own thread has ended (within a few seconds), so a container undeploying the application finds
     * no thread of it still running.
     */
    @Override
    public void close() {
        scheduler.close();
        backend.close();
        listener.engineClosed();
    }

    /**
     * {@code sluice.await-backend}: blocks until the backend's first connection, or until the wait is over, then
     * serves anyway. The wait is real time on this JVM's monotonic clock (not the injected ticker, which
     * a test may have stopped): it bounds how long a deployment blocks.
     */
    private void awaitBackend(Duration await) {
        if (await.isZero() || backend.connected()) return;
        long started = System.nanoTime();
        long deadline = started + await.toNanos();
        CompletableFuture<Void> first = backend.firstConnection().toCompletableFuture();
        // connected() starts another attempt when the last one failed; the future tells at once when one succeeds.
        while (!backend.connected()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                LOG.warn("Sluice started without its backend: no connection to Redis within sluice.await-backend={};"
                        + " until it connects, each rule follows its on-backend-failure", Durations.format(await));
                return;
            }
            try {
                first.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(AWAIT_RETRY_MILLIS)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // Not yet: ask again, which retries a failed attempt.
            } catch (ExecutionException e) {
                return; // closed meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("Sluice stopped waiting for its backend (interrupted); serving anyway");
                return;
            }
        }
        LOG.info("Sluice connected to its backend after {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /** Builds a {@link Sluice}. Not thread-safe; the built instance is. */
    public static final class Builder {
        private RuleSet rules;
        private LimiterBackend backend;
        private RedissonClient redisson;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.SYSTEM;
        private ClassLoader classLoader;
        private boolean inMemory;
        private Object meterRegistry;

        private Builder() {
        }

        /**
         * The rules, parsed from the properties of a rules file.
         *
         * @param properties the {@code sluice.*} properties ({@code ${NAME}} placeholders are resolved)
         * @return this builder
         * @throws ConfigException naming every problem of the properties
         */
        public Builder properties(Map<String, String> properties) {
            this.rules = RuleParser.parse(properties);
            return this;
        }

        /**
         * Rules parsed already.
         *
         * @param rules the rules
         * @return this builder
         */
        public Builder rules(RuleSet rules) {
            this.rules = Objects.requireNonNull(rules);
            return this;
        }

        /**
         * A backend of your own; Sluice closes it on {@link Sluice#close()}. Excludes {@link #redisson} and
         * {@link #inMemory}.
         *
         * @param backend the backend
         * @return this builder
         */
        public Builder backend(LimiterBackend backend) {
            this.backend = Objects.requireNonNull(backend);
            return this;
        }

        /**
         * Your own Redisson client; Sluice uses it and leaves it open on close. Excludes {@link #backend} and
         * {@link #inMemory}.
         *
         * @param client the client
         * @return this builder
         */
        public Builder redisson(RedissonClient client) {
            this.redisson = Objects.requireNonNull(client);
            return this;
        }

        /**
         * Keep the limits in this JVM only: for tests and single-node use. Excludes {@link #backend} and
         * {@link #redisson}.
         *
         * @return this builder
         */
        public Builder inMemory() {
            this.inMemory = true;
            return this;
        }

        /**
         * The wall clock of this server (the time base of the Redisson primitives); for tests.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /**
         * Where Sluice publishes its Micrometer meters ({@code sluice.requests} and the others listed in
         * docs/operations.md). Without this, and with Micrometer on the class path, they go to
         * {@code Metrics.globalRegistry}; without Micrometer, Sluice publishes none. Typed {@code Object} so
         * that Sluice's API does not need Micrometer on the class path.
         *
         * @param registry an {@code io.micrometer.core.instrument.MeterRegistry}, or null for the global registry
         * @return this builder
         */
        public Builder meterRegistry(Object registry) {
            this.meterRegistry = registry;
            return this;
        }

        /** The monotonic time of everything measured locally; for tests (package-private: not an API). */
        Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker);
            return this;
        }

        /**
         * Where {@code classpath:} locations (such as {@code sluice.redis.config}) are looked up.
         *
         * @param loader the class loader
         * @return this builder
         */
        public Builder classLoader(ClassLoader loader) {
            this.classLoader = loader;
            return this;
        }

        /**
         * The engine. Without a backend of your own, a Redisson client or {@link #inMemory}, Sluice connects
         * to the Redis the rules name, in the background: a Redis that is down blocks this only for as long as
         * {@code sluice.await-backend} says (default {@code 0s}: not at all), then it is logged and Sluice serves
         * anyway, each rule following its {@code on-backend-failure} until Redis connects.
         *
         * @return the engine; close it on shutdown
         * @throws IllegalStateException without rules, or with more than one backend chosen
         * @throws IllegalArgumentException when the meter registry is not a Micrometer {@code MeterRegistry}
         */
        public Sluice build() {
            if (rules == null) throw new IllegalStateException("rules or properties are required");
            List<String> chosen = new ArrayList<>();
            if (backend != null) chosen.add("backend(...)");
            if (redisson != null) chosen.add("redisson(...)");
            if (inMemory) chosen.add("inMemory()");
            if (chosen.size() > 1) {
                throw new IllegalStateException("choose one backend: backend(...), redisson(...) or inMemory(); got "
                        + String.join(" and ", chosen));
            }
            Optional<DecisionListener> meters = Micrometer.listener(meterRegistry);
            LimiterBackend b = backend;
            if (inMemory) b = new InMemoryBackend(clock);
            if (redisson != null) b = new RedissonBackend(redisson, false, clock, rules.settings().backendTimeout());
            if (b == null) {
                b = new RedissonBackend(RedissonClients.create(rules.settings(), classLoader), true, clock,
                        rules.settings().backendTimeout());
            }
            Sluice sluice = new Sluice(rules, b, clock, ticker, meters);
            sluice.awaitBackend(rules.settings().awaitBackend());
            return sluice;
        }
    }
}
