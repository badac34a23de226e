package io.sluice;

import io.sluice.engine.BackendStartup;
import io.sluice.engine.Engine;
import io.sluice.engine.Deadlines;
import io.sluice.engine.Ticker;
import io.sluice.key.RequestView;
import io.sluice.memory.InMemoryBackend;
import io.sluice.micrometer.Micrometer;
import io.sluice.rule.ConfigLoader;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.rule.RulesSource;
import io.sluice.spi.BackendProvider;
import io.sluice.spi.LimiterBackend;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.CompletionStage;

/**
 * The engine: a parsed rules file and a backend that stores the limits. Adapters (the servlet filter,
 * the CDI interceptor) ask it to {@link #admit} a request under the rules that apply to it, then write
 * the verdict in their own terms.
 *
 * <p>Rules are applied as the contract says: rate rules first, then concurrency rules, each group in the
 * order given (name order); the first rejection ends the request and returns the concurrency permits
 * already taken for it; permits of rate rules that allowed it stay consumed. Each backend call is bounded
 * by {@code sluice.backend-timeout}; when it fails or is late, the rule's {@code on-backend-failure} decides.
 * Concurrency permits are renewed at a third of their lease while they are held. The rules can be replaced while
 * the engine runs ({@link #reload()}, {@code sluice.reload}); counters survive a changed limit.
 *
 * <p>Thread-safe; build one per application and {@link #close()} it on shutdown.
 */
public final class Sluice implements AutoCloseable {
    private final Engine engine;

    private Sluice(Engine engine) {
        this.engine = engine;
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
     * The rules in effect: the parsed rules file, or what the last successful {@link #reload()} put in its place.
     * Read it again for each request rather than keeping it: a reload replaces it whole.
     *
     * @return the rules and global settings
     */
    public RuleSet rules() {
        return engine.rules();
    }

    /**
     * Reads the rules again from where the engine got them (the rules file, through {@link Builder#config} or
     * {@link Builder#source}; the servlet filter and the CDI producer build it so) and, when they changed, puts
     * them in effect at once: the next request is decided under them, requests in flight finish under the rules
     * they started with. Counters survive a changed limit (docs/reload.md says what carries over per algorithm).
     * The whole file is validated first: a file with any problem, one that removes a rule the application
     * {@linkplain #requireRules requires}, or one with no rule at all (unless it sets {@code sluice.allow-no-rules=true}),
     * is refused with one error log naming every problem, and the rules in effect stay. Settings that need a restart ({@code sluice.redis.*}, {@code sluice.key-prefix} and the others
     * docs/reload.md lists) are logged and ignored. Reloads, and the {@code sluice.reload} polling, run one at a
     * time.
     *
     * @return whether the rules changed (false when the source reads as it did)
     * @throws ConfigException naming every problem of refused rules (logged too)
     * @throws IllegalStateException when the engine was built from properties or rules: there is nothing to read again
     */
    public boolean reload() {
        return engine.reloader().reload();
    }

    /**
     * Puts the rules of these properties in effect, as {@link #reload()} does with the rules file: validated whole
     * first, refused (and logged) with every problem. A polled rules file replaces them again when it next changes.
     *
     * @param properties the {@code sluice.*} properties of a rules file
     * @throws ConfigException naming every problem of refused rules (logged too)
     */
    public void reload(Map<String, String> properties) {
        engine.reloader().reload(properties);
    }

    /**
     * Puts rules parsed already in effect, as {@link #reload()} does.
     *
     * @param rules the new rules
     * @throws ConfigException when they lack a rule the application {@linkplain #requireRules requires} (logged too)
     */
    public void reload(RuleSet rules) {
        engine.reloader().reload(rules);
    }

    /**
     * Records that rules must stay: a reload that would remove one of them is refused. The CDI extension registers
     * the rules every deployed {@code @Limited} names; any adapter with rules it cannot do without may.
     *
     * @param requiredBy who needs them, for the refusal's message (such as {@code @Limited on com.example.Images.generate})
     * @param ruleNames  the rules
     * @throws IllegalArgumentException when one of them is not a rule now
     */
    public void requireRules(String requiredBy, Collection<String> ruleNames) {
        engine.requireRules(Objects.requireNonNull(requiredBy), List.copyOf(ruleNames));
    }

    /** One look at the rules source, as the {@code sluice.reload} poll takes (for tests). */
    void pollRulesSource() {
        engine.reloader().poll();
    }

    /**
     * Gives one key of a rule another limit until {@code ttl} has passed, on every server: this one once the
     * returned stage completes, every other within a second (each polls the backend's version of the overrides once a
     * second, and reads them again only when it changed). An override wins over the key's plan, and a plan over the
     * rule; the key keeps its usage (a key that used 8 under {@code 10/1h} has 7 492 left under {@code 7500/1h}). A
     * rate override replaces only the rate (a token bucket's burst becomes the override's permits), a concurrency
     * override only the concurrency, and {@code unlimited} exempts the key from every limit of the rule. Setting an
     * override of a key that has one replaces it. The key is hashed before it leaves this method, as a request's is,
     * and never logged. At most 10 000 overrides are in effect at once.
     *
     * @param rule  the rule's name
     * @param key   the key value as the rule resolves it ({@code alice}, {@code 203.0.113.7}); ignored for a rule keyed
     *              {@code global}
     * @param limit a rate over the rule's period as the rules file writes it ({@code 7500/1h}), a concurrency number
     *              ({@code 8}), or {@code unlimited}
     * @param ttl   how long it lasts, from 1 second to 366 days
     * @return completes once stored and applied here; exceptionally when the backend failed, or refused one override
     *         more than 10 000 ({@code RequestRefusedException} of {@code io.sluice.spi})
     * @throws IllegalArgumentException naming an unknown rule, a limit the rule cannot take (the message a plan's
     *                                  would have), a missing key or a ttl out of range
     * @throws UnsupportedOperationException when the backend keeps no overrides
     */
    public CompletionStage<Void> override(String rule, String key, String limit, Duration ttl) {
        return engine.overrides().set(rule, key, limit, ttl);
    }

    /**
     * Removes the override of one key of a rule, on every server: this one once the returned stage completes, every
     * other within a second. The key's usage stays; from then on the key's plan, or the rule, limits it.
     *
     * @param rule the rule's name
     * @param key  the key value as the rule resolves it; ignored for a rule keyed {@code global}
     * @return whether the key had an override; exceptionally when the backend failed
     * @throws IllegalArgumentException naming an unknown rule, or for a missing key
     * @throws UnsupportedOperationException when the backend keeps no overrides
     */
    public CompletionStage<Boolean> clearOverride(String rule, String key) {
        return engine.overrides().clear(rule, key);
    }

    /** One look at the backend's overrides, as the once-a-second poll takes (for tests). */
    CompletionStage<Void> pollOverrides() {
        return engine.overrides().poll();
    }

    /**
     * Key values of a request, resolved by each rule's {@code key}; a rate rule's cost from its {@code costs}
     * for the request's {@link RequestView#path() path}; the plan from a rule's {@code plan}; whether each rule
     * applies to the request ({@code when}) and whether it exempts it ({@code exempt}).
     *
     * @param request the request, as an adapter sees it
     * @return the key, cost and plan of each rule for this request
     */
    public KeySource keysOf(RequestView request) {
        return engine.keysOf(request);
    }

    /**
     * Decides a request under the given rules (in name order). The returned admission must be closed when
     * the request ends, rejected or not. The stage never completes exceptionally for backend failures. A rule the
     * key source says does not apply ({@link KeySource#applies}) or exempts the request ({@link KeySource#exempt})
     * makes no decision and costs no backend call.
     *
     * @param applicable the rules that apply, in name order
     * @param keys       the key value of each rule
     * @return the admission, once every rule has decided
     */
    public CompletionStage<Admission> admit(List<Rule> applicable, KeySource keys) {
        return engine.admit(applicable, keys);
    }

    /**
     * This server's clock minus the backend's, as last measured (at start and every minute), or empty before
     * the first measurement or for a backend without a clock. Both Redisson primitives trust this server's
     * clock, so a skew beyond {@code sluice.max-clock-skew} is logged.
     *
     * @return the last measured skew
     */
    public Optional<Duration> clockSkew() {
        return engine.clockSkew();
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
        return engine.connected();
    }

    /**
     * Counts of decisions since this engine started.
     *
     * @return a snapshot of the counts
     */
    public Stats stats() {
        return engine.stats();
    }

    /**
     * Concurrency permits of the rule that are free now for the raw key value (for monitoring and tests), once the
     * releases of the key this server has sent have reached the backend.
     *
     * @param rule   a concurrency rule
     * @param rawKey the key value as resolved ({@code *} for {@code global})
     * @return the free permits
     */
    public CompletionStage<Integer> availablePermits(Rule rule, String rawKey) {
        return engine.availablePermits(rule, rawKey);
    }

    /**
     * Adds a listener of every decision from now on (for listeners that exist only after Sluice is built, such as a
     * container's event bus); {@link Builder#onDecision} is the usual way.
     *
     * @param listener hears each decision off the request's thread
     * @return closing it removes the listener
     */
    public AutoCloseable listen(DecisionListener listener) {
        return engine.listen(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * What a request of one key would see now under a rule, found without taking anything: the rate's limit,
     * remaining and reset (as the next request's rate headers would count them before it takes its permits), the
     * concurrency's limit and requests in flight on every server, and the time the key's {@code block} has left. The
     * limits are the key's {@link #override} when it has one in effect, else the rule's own (not a plan's: a plan comes
     * with a request). The key value is never logged.
     *
     * @param rule the rule's name
     * @param key  the key value as a request resolves it ({@code alice}, {@code 203.0.113.7}; for a combined key such
     *             as {@code user+ip}, each part as {@code <length>:<value>;}, e.g. {@code 5:alice;11:203.0.113.7;});
     *             ignored for a {@code global} rule
     * @return the usage, or a stage failed by the backend
     * @throws IllegalArgumentException when no rule has that name, or the key is empty
     * @throws UnsupportedOperationException when the backend cannot look keys up
     */
    public CompletionStage<Usage> usage(String rule, String key) {
        return engine.controls().usage(Objects.requireNonNull(rule, "rule"), key);
    }

    /**
     * Forgets a key's rate usage and its {@code block} under a rule, on every server: its next request finds the full
     * rate limit. Concurrency permits held by requests in flight stay held (they are released as those requests end),
     * so no more than the limit ever run. This server forgets what its shield knew of the key at once; other servers
     * within a second for a rule with a {@code block}, else when what they last heard says a permit frees. The key
     * value is never logged.
     *
     * @param rule the rule's name
     * @param key  the key value, as for {@link #usage}
     * @return completes once the backend has forgotten the key
     * @throws IllegalArgumentException when no rule has that name, or the key is empty
     * @throws UnsupportedOperationException when the backend cannot reset keys
     */
    public CompletionStage<Void> reset(String rule, String key) {
        return engine.controls().reset(Objects.requireNonNull(rule, "rule"), key);
    }

    /** The engine behind this facade (for tests: {@code io.sluice.engine.EngineProbe} looks inside). */
    Engine engine() {
        return engine;
    }

    /**
     * Hands back prefetched permits not used, stops lease renewal and closes the backend (and the Redis client, when
     * Sluice created it). Returns once Sluice's own thread has ended (within a few seconds), so a container undeploying
     * the application finds no thread of it still running.
     */
    @Override
    public void close() {
        engine.close();
    }

    /** Builds a {@link Sluice}. Not thread-safe; the built instance is. */
    public static final class Builder {
        private RuleSet rules;
        private Map<String, String> loaded;
        private RulesSource source;
        private boolean config;
        private String configLocation;
        private LimiterBackend backend;
        private BackendProvider provider;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.SYSTEM;
        private ClassLoader classLoader;
        private boolean inMemory;
        private Object meterRegistry;
        private final List<DecisionListener> listeners = new ArrayList<>();

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
            this.loaded = new LinkedHashMap<>(properties);
            this.source = null;
            this.config = false;
            return this;
        }

        /**
         * The rules file at a location, read when the engine is built and again by {@link Sluice#reload()} and
         * {@code sluice.reload}: {@code file:PATH}, a plain file path or {@code classpath:PATH}; null looks where the
         * filter and the CDI producer look (the system property {@code sluice.config}, the environment variable
         * {@code SLUICE_CONFIG}, then {@code classpath:sluice.properties}).
         *
         * @param location where the rules file is, or null
         * @return this builder
         */
        public Builder config(String location) {
            this.configLocation = location;
            this.config = true;
            this.source = null;
            this.rules = null;
            return this;
        }

        /**
         * Where the rules come from, read when the engine is built and again by {@link Sluice#reload()} and
         * {@code sluice.reload}: {@link ConfigLoader#source a rules file} or {@link RulesSource#of properties of
         * your own}.
         *
         * @param source the rules source
         * @return this builder
         */
        public Builder source(RulesSource source) {
            this.source = Objects.requireNonNull(source);
            this.config = false;
            this.rules = null;
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
            this.loaded = null;
            this.source = null;
            this.config = false;
            return this;
        }

        /**
         * A backend of your own; Sluice closes it on {@link Sluice#close()}. Replaces a {@link
         * #backend(BackendProvider) provider}; excludes {@link #inMemory}.
         *
         * @param backend the backend
         * @return this builder
         */
        public Builder backend(LimiterBackend backend) {
            this.backend = Objects.requireNonNull(backend);
            this.provider = null;
            return this;
        }

        /**
         * A backend made for the rules' settings, in place of the provider found on the class path: such as
         * {@code RedissonBackendProvider.using(client)} of {@code sluice-redisson}, for your own Redisson client
         * (which Sluice then leaves open on close). Start-up waits for its first connection as for the provider's.
         * Replaces a {@link #backend(LimiterBackend) backend}; excludes {@link #inMemory}.
         *
         * @param provider what makes the backend
         * @return this builder
         */
        public Builder backend(BackendProvider provider) {
            this.provider = Objects.requireNonNull(provider);
            this.backend = null;
            return this;
        }

        /**
         * Keep the limits in this JVM only: for tests and single-node use. Excludes {@link #backend}.
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

        /**
         * Adds a listener of every decision: rule, type, result, cost, limit, remaining, time and the key's hash,
         * never its value. Listeners registered as {@code ServiceLoader} services of {@link DecisionListener} in the
         * {@link #classLoader} are added as well.
         *
         * @param listener hears each decision off the request's thread; see {@link DecisionListener}
         * @return this builder
         */
        public Builder onDecision(DecisionListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * The monotonic time of everything measured locally; for tests (package-private: not an API). On a ticker of
         * a test's own, deadlines pass exactly when the test moves it: the allowances for a busy server (time the
         * deadline sweep did not see, a saturated CPU) read real time and apply to the system ticker only.
         */
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
         * The engine. Without a backend of your own or {@link #inMemory}, Sluice makes one with the {@link
         * BackendProvider} on the class path ({@code sluice-redisson}'s: it connects to the Redis the rules name, in
         * the background), or with the {@link #backend(BackendProvider) provider given}, and waits for the first
         * connection for as long as {@code sluice.await-backend} says (default {@code 10s}), so that the first
         * request is decided in Redis: a Redis that is down blocks this only that long, then it is logged and Sluice
         * serves anyway, each rule following its {@code on-backend-failure} until Redis connects. Until Redis has answered a first decision,
         * and within that wait from now, a decision waits for Redis beyond {@code sluice.backend-timeout}: the first
         * decisions of a fresh JVM are slower than a warm deadline allows.
         *
         * @return the engine; close it on shutdown
         * @throws IllegalStateException without rules, with more than one backend chosen, or with none chosen and
         *                               not exactly one provider on the class path
         * @throws IllegalArgumentException when the meter registry is not a Micrometer {@code MeterRegistry}
         * @throws ConfigException naming every problem of the rules read from a {@link #config} or {@link #source}
         */
        public Sluice build() {
            RulesSource from = config ? ConfigLoader.source(configLocation, Map.of(), classLoader) : source;
            if (from != null) {
                loaded = from.load();
                rules = RuleParser.parse(loaded);
            }
            if (rules == null) throw new IllegalStateException("rules, properties, config or source are required");
            List<String> chosen = new ArrayList<>();
            if (backend != null || provider != null) chosen.add("backend(...)");
            if (inMemory) chosen.add("inMemory()");
            if (chosen.size() > 1) {
                throw new IllegalStateException("choose one backend: backend(...) or inMemory(); got "
                        + String.join(" and ", chosen));
            }
            var meters = Micrometer.listener(meterRegistry);
            LimiterBackend b = backend;
            if (inMemory) b = new InMemoryBackend(clock);
            // Sluice's own deadline decides when a call is late; the client's timeout only backs it up.
            Duration clientTimeout = Deadlines.clientTimeout(rules.settings().backendTimeout());
            boolean provided = b == null;
            if (provided) {
                BackendProvider p = provider != null ? provider : discoveredProvider();
                b = p.create(rules.settings(), classLoader, clock, clientTimeout);
            }
            Sluice sluice = new Sluice(new Engine(rules, from, loaded, b, clock, ticker, meters, provided));
            for (DecisionListener l : listeners) sluice.listen(l);
            ServiceLoader.load(DecisionListener.class, loaderOrOwn()).forEach(sluice::listen);
            BackendStartup.await(b, rules.settings().awaitBackend());
            return sluice;
        }

        /** The one {@link BackendProvider} registered on the class path (sluice-redisson's). */
        private BackendProvider discoveredProvider() {
            List<BackendProvider> found = new ArrayList<>();
            ServiceLoader.load(BackendProvider.class, loaderOrOwn()).forEach(found::add);
            if (found.size() == 1) return found.get(0);
            if (found.isEmpty()) {
                throw new IllegalStateException("no backend: add sluice-redisson to the class path for Redis, or give "
                        + "one with backend(...) or inMemory()");
            }
            List<String> names = found.stream().map(p -> p.getClass().getName()).toList();
            throw new IllegalStateException("several backend providers on the class path, " + names
                    + ": choose one with backend(...)");
        }

        private ClassLoader loaderOrOwn() {
            return classLoader != null ? classLoader : Sluice.class.getClassLoader();
        }
    }
}
