package io.sluice.engine;

import io.sluice.ConfigException;
import io.sluice.internal.Log;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Durations;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.rule.Settings;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The engine's current rules, the one place every part of the engine reads them from: one immutable snapshot
 * (the rules and the key resolver of their settings) in a volatile field, swapped whole by {@link #replace}. A
 * request in flight keeps the {@link Rule}s it started with; the next one sees the new snapshot.
 *
 * <p>Some settings are wired into the engine when it is built and need a restart: {@code sluice.redis.*},
 * {@code sluice.key-prefix}, {@code sluice.backend-timeout}, {@code sluice.max-clock-skew},
 * {@code sluice.headers}, {@code sluice.await-backend} and {@code sluice.reload} (so that no file, such as one
 * caught half-written, can stop the polling). A new value of one of them is logged and ignored: the snapshot keeps
 * the running value, so {@link #get()} always shows what is in effect. Live: {@code sluice.on-backend-failure}
 * (every rule's default), {@code sluice.trusted-proxies} and {@code sluice.client-address-header}.
 *
 * <p>Rules with no rule at all replace rules that have some only when they say so
 * ({@code sluice.allow-no-rules=true}): an empty file is far more often one caught while it is rewritten than a
 * wish to turn every limit off.
 *
 * <p>Rules that an adapter needs (the rules a deployed {@code @Limited} names) are registered with
 * {@link #require}; new rules without one of them are refused. Thread-safe: replacements are serialized.
 */
final class LiveRules implements Supplier<RuleSet> {
    private record Snapshot(RuleSet rules, KeyResolver resolver) {
        static Snapshot of(RuleSet rules) {
            return new Snapshot(rules, new KeyResolver(rules.settings().trustedProxies(), rules.settings().clientAddressHeader()));
        }
    }

    /** A setting that needs a restart: its property, and how to read and show it. */
    private record RestartOnly(String property, Function<Settings, Object> value) {
    }

    private static final List<RestartOnly> RESTART_ONLY = List.of(
            new RestartOnly("sluice.redis.address", s -> s.redisAddress().map(RuleParser::redactUserInfo).orElse("(none)")),
            new RestartOnly("sluice.redis.config", s -> s.redisConfig().orElse("(none)")),
            new RestartOnly("sluice.redis.transport", s -> s.redisTransport().id()),
            new RestartOnly("sluice.key-prefix", Settings::keyPrefix),
            new RestartOnly("sluice.backend-timeout", s -> Durations.format(s.backendTimeout())),
            new RestartOnly("sluice.max-clock-skew", s -> Durations.format(s.maxClockSkew())),
            new RestartOnly("sluice.headers", s -> s.headers().name().toLowerCase(Locale.ROOT)),
            new RestartOnly("sluice.await-backend", s -> Durations.format(s.awaitBackend())),
            new RestartOnly("sluice.reload", s -> Durations.format(s.reload())));

    private final Log log;
    private volatile Snapshot current;
    /** Rule name to who needs it ("@Limited on com.x.Foo.bar"), in name order. Guarded by this. */
    private final Map<String, Set<String>> required = new TreeMap<>();

    LiveRules(RuleSet initial, Log log) {
        this.current = Snapshot.of(initial);
        this.log = log;
    }

    /** {@return the rules in effect now} */
    @Override
    public RuleSet get() {
        return current.rules();
    }

    /** The key resolver of the rules in effect (their trusted proxies and client address header). */
    KeyResolver resolver() {
        return current.resolver();
    }

    /**
     * Records that {@code requiredBy} needs the named rules for as long as the engine runs.
     *
     * @throws IllegalArgumentException when one of them is not a rule now
     */
    synchronized void require(String requiredBy, Collection<String> names) {
        RuleSet rules = get();
        List<String> unknown = names.stream().filter(n -> rules.get(n).isEmpty()).distinct().sorted().toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(requiredBy + " names unknown rules " + unknown + "; rules are: "
                    + rules.all().stream().map(Rule::name).toList());
        }
        for (String n : names) required.computeIfAbsent(n, k -> new TreeSet<>()).add(requiredBy);
    }

    /**
     * Validates the new rules against what the engine needs and swaps them in; every problem is in the one
     * exception (the caller logs it).
     *
     * @param candidate the new rules, parsed already
     * @return a line saying what changed
     * @throws ConfigException naming every required rule the candidate lacks, or when it has no rule at all (and
     *                         does not allow that) where the rules in effect have some
     */
    synchronized String replace(RuleSet candidate) {
        List<String> problems = new ArrayList<>();
        RuleSet running = get();
        if (candidate.all().isEmpty() && !running.all().isEmpty() && !candidate.settings().allowNoRules()) {
            problems.add("sluice.rules = (none): expected at least one rule; a reload that would turn every limit off ("
                    + running.all().size() + " rules in effect) is refused, as a file caught while it is rewritten would be,"
                    + " unless the new rules set sluice.allow-no-rules=true");
        }
        required.forEach((name, by) -> {
            if (candidate.get(name).isEmpty()) {
                problems.add("sluice.rules." + name + " = (removed): expected the rule to stay, since " + String.join(", ", by)
                        + " names it (remove the annotation and redeploy first)");
            }
        });
        if (!problems.isEmpty()) throw new ConfigException(problems);
        Settings settings = keepRestartOnly(running.settings(), candidate.settings());
        RuleSet next = new RuleSet(settings, candidate.all());
        current = Snapshot.of(next);
        return changes(running, next);
    }

    /** The candidate's settings, with the running value of every setting that needs a restart; each change logged. */
    private Settings keepRestartOnly(Settings running, Settings candidate) {
        for (RestartOnly r : RESTART_ONLY) {
            Object was = r.value().apply(running);
            Object now = r.value().apply(candidate);
            if (!Objects.equals(was, now)) {
                log.warn("Sluice reload: {} changed from \"{}\" to \"{}\", which needs a restart; still using \"{}\"",
                        r.property(), was, now, was);
            }
        }
        return new Settings(running.redisAddress(), running.redisConfig(), running.keyPrefix(), candidate.onBackendFailure(),
                candidate.trustedProxies(), candidate.clientAddressHeader(), running.headers(), running.backendTimeout(),
                running.maxClockSkew(), running.awaitBackend(), running.reload(), candidate.allowNoRules(), candidate.localShare(),
                running.redisTransport());
    }

    private static String changes(RuleSet before, RuleSet after) {
        List<String> added = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        for (Rule r : after.all()) {
            Optional<Rule> old = before.get(r.name());
            if (old.isEmpty()) added.add(r.name());
            else if (!old.get().equals(r)) changed.add(r.name());
        }
        for (Rule r : before.all()) if (after.get(r.name()).isEmpty()) removed.add(r.name());
        return after.all().size() + " rules; added " + added + ", changed " + changed + ", removed " + removed;
    }
}
