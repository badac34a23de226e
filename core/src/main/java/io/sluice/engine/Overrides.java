package io.sluice.engine;

import io.sluice.internal.ThrottledLog;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Durations;
import io.sluice.rule.OverrideParser;
import io.sluice.rule.PlanLimits;
import io.sluice.rule.Rate;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.spi.Connecting;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Overriding;
import io.sluice.spi.StoredOverride;
import io.sluice.spi.StoredOverrides;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Operators' overrides of one key's limit ({@code Sluice.override}), kept in the backend so that every server
 * applies them: this server's copy, read on the request path without a backend call, and refreshed when the
 * backend's version changes (polled every {@link #POLL_MILLIS}) or when this server wrote one. An override is
 * applied as a plan of one key: it wins over the request's plan, and the key keeps its usage. Its end is checked on
 * this server's wall clock; ended ones are dropped at the next poll. Raw key values are hashed here, as
 * {@link KeyNaming} hashes them, and never logged. Thread-safe.
 */
public final class Overrides {
    /** How often the backend's version is read: an override reaches every server within this. */
    public static final long POLL_MILLIS = 1_000;
    /** The shortest time to live of an override. */
    public static final Duration MIN_TTL = Duration.ofSeconds(1);
    /** The longest time to live of an override: the longest period a rate may have. */
    public static final Duration MAX_TTL = Rate.MAX_PERIOD;

    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    /** One override in effect: its limits (parsed against the rule in effect) and when it ends. */
    private record Entry(PlanLimits limits, long untilMillis) {
    }

    /** Rule name to hashed key to override; immutable, swapped whole. */
    private record Table(long version, Map<String, Map<String, Entry>> byRule) {
        static final Table EMPTY = new Table(0, Map.of());
    }

    private final Overriding backend;
    /** Null for a backend without a connection of its own: always reachable. */
    private final Connecting connecting;
    private final String prefix;
    private final Clock clock;
    private final Supplier<RuleSet> rules;
    private final ThrottledLog log;
    private volatile Table table = Table.EMPTY;
    /** What the backend last gave, parsed again after a reload of the rules. */
    private volatile StoredOverrides stored = StoredOverrides.NONE;
    /** Reads of the backend in the order they started: an older one never replaces a newer one's table. */
    private final AtomicLong reads = new AtomicLong();
    private long applied; // guarded by this
    private final Object pollLock = new Object();
    /** The look at the backend in flight, null when none is. Guarded by pollLock. */
    private CompletableFuture<Void> polling;

    /**
     * @param backend the store; without {@link Overriding}, no override can be set and none applies
     */
    Overrides(LimiterBackend backend, String prefix, Clock clock, Supplier<RuleSet> rules, ThrottledLog log) {
        this.backend = backend instanceof Overriding o ? o : null;
        this.connecting = backend instanceof Connecting c ? c : null;
        this.prefix = prefix;
        this.clock = clock;
        this.rules = rules;
        this.log = log;
    }

    /** Polls the backend's version on the engine's thread, when the backend keeps overrides. */
    void pollEvery(EngineScheduler scheduler) {
        if (backend != null) scheduler.withFixedDelay(this::scheduledPoll, 0, POLL_MILLIS);
    }

    /** Whether some key of the rule has an override in effect (requests of other rules look no further). */
    boolean covers(Rule rule) {
        return table.byRule().containsKey(rule.name());
    }

    /**
     * The override of the raw key value under the rule, or null when it has none in effect.
     *
     * @param raw the key value as resolved for the request ({@code *} for {@code global})
     */
    PlanLimits lookup(Rule rule, String raw) {
        Map<String, Entry> byKey = table.byRule().get(rule.name());
        if (byKey == null) return null;
        Entry e = byKey.get(KeyResolver.hash(raw));
        return e == null || e.untilMillis() <= clock.millis() ? null : e.limits();
    }

    /**
     * Stores an override and applies it here once stored.
     *
     * @throws IllegalArgumentException for an unknown rule, a missing key, a limit the rule cannot take, a TTL out of
     *                                  range
     * @throws UnsupportedOperationException when the backend keeps no overrides
     */
    public CompletionStage<Void> set(String ruleName, String raw, String limit, Duration ttl) {
        Rule rule = rule(ruleName);
        String key = keyOf(rule, raw);
        if (ttl == null || ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException("override ttl = \"" + (ttl == null ? "(none)" : Durations.format(ttl))
                    + "\": expected a duration from " + Durations.format(MIN_TTL) + " to " + Durations.format(MAX_TTL));
        }
        String canonical = OverrideParser.canonical(OverrideParser.parse(rule, limit));
        Overriding store = store();
        long now = clock.millis();
        StoredOverride o = new StoredOverride(rule.name(), KeyResolver.hash(key), canonical, now + ttl.toMillis());
        return store.putOverride(prefix, o, now).thenCompose(v -> refresh());
    }

    /**
     * Removes an override and applies that here once removed.
     *
     * @return whether the key had one
     */
    public CompletionStage<Boolean> clear(String ruleName, String raw) {
        Rule rule = rule(ruleName);
        String key = keyOf(rule, raw);
        return store().removeOverride(prefix, rule.name(), KeyResolver.hash(key))
                .thenCompose(removed -> refresh().thenApply(v -> removed));
    }

    /**
     * One look at the backend's version, begun after this call: the overrides are read again when it changed, or when
     * one has ended. A look already in flight (begun before, maybe before the change the caller wants seen) is
     * followed by this one.
     */
    public CompletionStage<Void> poll() {
        if (backend == null) return CompletableFuture.completedFuture(null);
        CompletableFuture<Void> earlier;
        synchronized (pollLock) {
            earlier = polling;
            if (earlier == null) return look();
        }
        return earlier.handle((v, e) -> null).thenCompose(v -> poll());
    }

    /**
     * The scheduled look: skipped while one is in flight (a backend that does not answer never piles them up), and
     * while the backend is not connected (start-up has said so already; there is nothing to read until it is).
     */
    private void scheduledPoll() {
        if (connecting != null && !connecting.connected()) return;
        synchronized (pollLock) {
            if (polling != null) return;
            look();
        }
    }

    /** Starts a look; called with {@link #pollLock} held and no look in flight. */
    private CompletableFuture<Void> look() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        polling = done;
        CompletionStage<Void> read;
        try {
            read = backend.overridesVersion(prefix).thenCompose(v -> v != table.version() || anyEnded()
                    ? refresh() : CompletableFuture.completedFuture(null));
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((v, e) -> {
            synchronized (pollLock) {
                polling = null;
            }
            // The overrides in effect stay until the backend answers again.
            if (e != null) log.warn("overrides", "Sluice could not read the overrides from the backend: " + e);
            done.complete(null);
        });
        return done;
    }

    /** After a reload: the overrides are parsed again against the new rules. */
    void rulesChanged() {
        synchronized (this) {
            table = parse(stored);
        }
    }

    private CompletionStage<Void> refresh() {
        long read = reads.incrementAndGet();
        return backend.overrides(prefix).thenAccept(s -> {
            synchronized (this) {
                if (read < applied) return;
                applied = read;
                stored = s;
                table = parse(s);
            }
        });
    }

    private boolean anyEnded() {
        long now = clock.millis();
        for (Map<String, Entry> byKey : table.byRule().values()) {
            for (Entry e : byKey.values()) if (e.untilMillis() <= now) return true;
        }
        return false;
    }

    /** The overrides not ended, each parsed against its rule in effect; one that no longer fits is logged and left out. */
    private Table parse(StoredOverrides s) {
        long now = clock.millis();
        RuleSet in = rules.get();
        Map<String, Map<String, Entry>> byRule = new HashMap<>();
        for (StoredOverride o : s.overrides()) {
            if (o.untilMillis() <= now) continue;
            Optional<Rule> rule = in.get(o.rule());
            if (rule.isEmpty()) continue;
            try {
                PlanLimits limits = OverrideParser.parse(rule.get(), o.limit());
                byRule.computeIfAbsent(o.rule(), r -> new HashMap<>()).put(o.hashedKey(), new Entry(limits, o.untilMillis()));
            } catch (IllegalArgumentException e) {
                log.warn("override:" + o.rule(), "Sluice ignores an override of rule " + o.rule()
                        + " that its rules in effect no longer accept: " + e.getMessage());
            }
        }
        byRule.replaceAll((r, byKey) -> Map.copyOf(byKey));
        return new Table(s.version(), Map.copyOf(byRule));
    }

    private Rule rule(String name) {
        RuleSet in = rules.get();
        Optional<Rule> rule = name == null ? Optional.empty() : in.get(name);
        if (rule.isPresent()) return rule.get();
        // A name is echoed only when it could be one: a hostile value never reaches a message.
        String shown = name != null && RULE_NAME.matcher(name).matches() ? name : "(not a rule name)";
        throw new IllegalArgumentException("override of rule \"" + shown + "\": no such rule; expected one of "
                + in.all().stream().map(Rule::name).toList());
    }

    /** A {@code global} rule has one key for everyone, whatever the caller names. */
    private static String keyOf(Rule rule, String raw) {
        if (rule.key().global()) return KeyResolver.GLOBAL;
        if (raw == null || raw.isEmpty()) {
            throw new IllegalArgumentException("override of rule " + rule.name() + ": expected a key value, as the rule's key "
                    + rule.key() + " resolves it (such as alice or 203.0.113.7)");
        }
        return raw;
    }

    private Overriding store() {
        if (backend == null) throw new UnsupportedOperationException("this backend keeps no overrides");
        return backend;
    }
}
