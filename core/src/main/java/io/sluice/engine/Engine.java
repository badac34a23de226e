package io.sluice.engine;

import io.sluice.engine.rate.RateDecider;
import io.sluice.Admission;
import io.sluice.DecisionListener;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.internal.Log;
import io.sluice.internal.ThrottledLog;
import io.sluice.key.RequestView;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.rule.RulesSource;
import io.sluice.rule.When;
import io.sluice.spi.Connecting;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.ServerClock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The engine's parts for one backend, assembled once: the live rules and their reloads, the rate and lease
 * decisions, the admission of a request under them, and the engine's thread. {@link Sluice} is its public face.
 */
public final class Engine implements AutoCloseable {
    private static final Log LOG = Log.of(Sluice.class);
    /** A warning of one topic (a rule's backend failures, say) is logged at most this often. */
    private static final long WARN_AT_MOST_EVERY_MILLIS = 10_000;
    /** How often decisions past their deadline are failed: a deadline fires at most this late. */
    private static final long DEADLINE_SWEEP_MILLIS = 10;

    private final LiveRules live;
    private final LimiterBackend backend;
    /** Null for a backend without a connection of its own (an in-JVM store): always connected. */
    private final Connecting connecting;
    private final EngineScheduler scheduler = new EngineScheduler();
    private final StatsRecorder stats = new StatsRecorder();
    private final EngineListener listener;
    private final DecisionFeed feed;
    private final Admitter admitter;
    private final RateDecider rates;
    private final Leases leases;
    /** Null for a backend without a clock of its own: no skew to measure. */
    private final ClockSkewMonitor clockSkew;
    private final RulesReloader reloader;
    private final Overrides overrides;
    /** The servers sharing the backend, which divide each limit among them while it cannot answer. */
    private final LiveServers servers;
    private final KeyControls controls;

    /**
     * @param source    what reloads read again; null when the rules were given as properties or parsed rules
     * @param loaded    the properties the rules were parsed from, or null
     * @param coldStart whether the backend connects in the background (Redis): then the first decisions may take
     *                  up to {@code sluice.await-backend} from now, until the backend has answered once
     */
    public Engine(RuleSet rules, RulesSource source, Map<String, String> loaded, LimiterBackend backend, Clock clock,
           Ticker ticker, Optional<EngineListener> meters, boolean coldStart) {
        this.live = new LiveRules(rules, LOG);
        this.backend = backend;
        this.connecting = backend instanceof Connecting c ? c : null;
        this.listener = meters.map(m -> EngineListeners.of(List.of(stats, m))).orElse(stats);
        ThrottledLog log = new ThrottledLog(LOG, WARN_AT_MOST_EVERY_MILLIS, ticker);
        KeyNaming naming = new KeyNaming(rules.settings().keyPrefix(), backend);
        Duration startUp = coldStart ? rules.settings().awaitBackend() : Duration.ZERO;
        this.servers = new LiveServers(backend, rules.settings().keyPrefix(), live);
        BackendGuard guard = new BackendGuard(rules.settings().backendTimeout(), startUp, ticker, listener, log,
                new LocalLimits(clock, servers::divisor));
        this.leases = new Leases(backend, guard, naming, scheduler, log, listener, live);
        this.rates = new RateDecider(backend, guard, naming, ticker, listener, scheduler, live, servers::counted);
        this.feed = new DecisionFeed(clock, log);
        this.overrides = new Overrides(backend, rules.settings().keyPrefix(), clock, live, log);
        this.controls = new KeyControls(live::get, backend, naming, rates, leases, overrides);
        this.admitter = new Admitter(rates, leases, listener, feed, log, rules.settings().headers(), overrides);
        this.clockSkew = backend instanceof ServerClock server
                ? new ClockSkewMonitor(server, clock, ticker, rules.settings().maxClockSkew(), scheduler, log) : null;
        if (clockSkew != null) clockSkew.start();
        scheduler.withFixedDelay(guard::sweep, DEADLINE_SWEEP_MILLIS, DEADLINE_SWEEP_MILLIS);
        servers.start(scheduler);
        // A key the shield remembers as exhausted may have room under a new limit.
        this.reloader = new RulesReloader(live, source, loaded, () -> {
            rates.forgetShielded();
            overrides.rulesChanged();
        });
        reloader.pollEvery(rules.settings().reload(), scheduler);
        overrides.pollEvery(scheduler);
    }

    public RuleSet rules() {
        return live.get();
    }

    public RulesReloader reloader() {
        return reloader;
    }

    /** Operators' overrides of one key's limit. */
    public Overrides overrides() {
        return overrides;
    }

    public void requireRules(String requiredBy, List<String> ruleNames) {
        live.require(requiredBy, ruleNames);
    }

    /** Key values, costs, plans, audience and exemptions of a request under each rule, as the rules in effect resolve them. */
    public KeySource keysOf(RequestView request) {
        return new KeySource() {
            @Override
            public String keyFor(Rule rule) {
                return live.resolver().resolve(rule.key(), request);
            }

            @Override
            public long costFor(Rule rule) {
                String path = request.path();
                return path == null ? rule.ratePolicy().cost() : rule.ratePolicy().costFor(path);
            }

            @Override
            public String planFor(Rule rule) {
                return rule.plans().source().map(s -> s.resolve(request)).orElse(null);
            }

            @Override
            public boolean applies(Rule rule) {
                // Most rules apply always: the user is not looked up for them (in CDI, a principal look-up).
                return rule.when() == When.ALWAYS || rule.when().appliesTo(request.userName());
            }

            @Override
            public boolean exempt(Rule rule) {
                return !rule.exempt().none() && rule.exempt().exempts(request, live.resolver());
            }
        };
    }

    public CompletionStage<Admission> admit(List<Rule> applicable, KeySource keys) {
        return admitter.admit(applicable, keys);
    }

    public Optional<Duration> clockSkew() {
        return clockSkew == null ? Optional.empty() : clockSkew.skew();
    }

    public boolean connected() {
        return connecting == null || connecting.connected();
    }

    public Stats stats() {
        return stats.snapshot(feed.dropped());
    }

    /** Adds an application's listener of every decision; closing the handle removes it. */
    public AutoCloseable listen(DecisionListener decisions) {
        return feed.add(decisions);
    }

    public CompletionStage<Integer> availablePermits(Rule rule, String rawKey) {
        return leases.available(rule, rawKey);
    }

    /** The servers sharing the backend (for tests). */
    LiveServers servers() {
        return servers;
    }

    /** Looking up and resetting one key. */
    public KeyControls controls() {
        return controls;
    }

    /** The rate decisions (for tests). */
    RateDecider rateDecider() {
        return rates;
    }

    @Override
    public void close() {
        rates.close();
        scheduler.close();
        feed.close();
        backend.close();
        listener.engineClosed();
    }
}
