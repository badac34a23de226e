package io.sluice.engine;

import io.sluice.ConfigException;
import io.sluice.Sluice;
import io.sluice.internal.Log;
import io.sluice.rule.Durations;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.rule.RulesSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Puts new rules in effect, one reload at a time: read again from the rules source (on request or by the
 * {@code sluice.reload} poll), or given by the application; rules with any problem are refused with one error log,
 * and the rules in effect stay.
 */
public final class RulesReloader {
    private static final Log LOG = Log.of(Sluice.class);
    /** Where rules given to {@code reload(...)} come from, in log messages. */
    private static final String FROM_CODE = "the application (Sluice.reload)";

    private final LiveRules live;
    /** What {@link #reload()} reads again; null when the engine was built from properties or rules. */
    private final RulesSource source;
    /** Told after every swap: state kept under the old rules that a new limit may contradict. */
    private final Runnable swapped;
    /** Serializes reloads, and guards the fields below. */
    private final Object reloading = new Object();
    /** The properties the rules in effect were read from (null when built from a RuleSet). */
    private Map<String, String> loaded;
    /** The properties the poll last saw, applied or refused: a refused file is logged once, not on every poll. */
    private Map<String, String> lastSeen;
    /**
     * What the last poll read when it differed from {@link #lastSeen}: applied only if the next poll reads the same,
     * so a file caught while it is being written (truncated, half there) is never applied.
     */
    private Map<String, String> unsettled;
    /** The last reason the poll could not read the source, logged once until it changes. */
    private String lastUnreadable;

    RulesReloader(LiveRules live, RulesSource source, Map<String, String> loaded, Runnable swapped) {
        this.live = live;
        this.source = source;
        this.loaded = loaded;
        this.lastSeen = loaded;
        this.swapped = swapped;
    }

    /** {@link Sluice#reload()}. */
    public boolean reload() {
        if (source == null) {
            throw new IllegalStateException("Sluice was built from properties or rules, not from a rules source: nothing"
                    + " to read again; call reload(properties), or build it with Builder.config(...) or Builder.source(...)");
        }
        synchronized (reloading) {
            Map<String, String> properties;
            try {
                properties = source.load();
            } catch (ConfigException e) {
                throw refused(e, source.description());
            }
            lastSeen = properties;
            unsettled = null;
            if (properties.equals(loaded)) return false;
            apply(properties, source.description());
            return true;
        }
    }

    /** {@link Sluice#reload(Map)}. */
    public void reload(Map<String, String> properties) {
        synchronized (reloading) {
            apply(new LinkedHashMap<>(properties), FROM_CODE);
        }
    }

    /** {@link Sluice#reload(RuleSet)}. */
    public void reload(RuleSet rules) {
        Objects.requireNonNull(rules);
        synchronized (reloading) {
            swap(rules, FROM_CODE);
            loaded = null;
        }
    }

    /**
     * One look at the rules source for {@code sluice.reload}: reloads when it has read differently from the rules
     * last seen <em>on two looks in a row</em>. A file is rewritten in place by truncating it and writing it again
     * ({@code cat >}, {@code Files.writeString}, many deploy tools): a look in between reads it empty or cut short,
     * and the next look, a poll interval later, reads it whole. Comparing contents (not size and modification time,
     * which a rewrite within the file system's time granularity can leave as they were) finds every change. A refused
     * or unreadable source is logged once, not on every look. Runs on the engine's thread (tests call it).
     */
    public void poll() {
        synchronized (reloading) {
            Map<String, String> properties;
            try {
                properties = source.load();
            } catch (ConfigException e) {
                unsettled = null;
                if (!e.getMessage().equals(lastUnreadable)) refused(e, source.description());
                lastUnreadable = e.getMessage();
                return;
            }
            lastUnreadable = null;
            if (properties.equals(lastSeen)) {
                unsettled = null;
                return;
            }
            if (!properties.equals(unsettled)) {
                unsettled = properties; // changed, or still changing: look again next time
                return;
            }
            unsettled = null;
            lastSeen = properties;
            if (properties.equals(loaded)) return; // back as it is in effect (a rewrite caught half-way, say)
            try {
                apply(properties, source.description());
            } catch (ConfigException refusedAndLogged) {
                // The rules in effect keep serving; the next change of the file is looked at again.
            }
        }
    }

    /**
     * Polls the source every {@code every} (zero: never), from start to close: no file read later changes it
     * ({@code sluice.reload} needs a restart), so no file caught half-written can stop it.
     */
    void pollEvery(Duration every, EngineScheduler scheduler) {
        if (every.isZero()) return;
        if (source == null || !source.pollable()) {
            LOG.warn("sluice.reload={} is ignored: it polls a rules file (file:PATH or a plain path) or a RulesSource.of(...),"
                    + " and the rules come from {}; Sluice.reload() applies changes", Durations.format(every),
                    source != null ? source.description() : "properties given to the builder");
            return;
        }
        scheduler.withFixedDelay(() -> {
            try {
                poll();
            } catch (RuntimeException e) {
                // Caught, or the executor would never run the poll again.
                LOG.warn("Sluice could not check its rules source for changes", e);
            }
        }, every.toMillis(), every.toMillis());
    }

    /** Parses and swaps in the properties; the caller holds {@link #reloading}. */
    private void apply(Map<String, String> properties, String from) {
        RuleSet parsed;
        try {
            parsed = RuleParser.parse(properties);
        } catch (ConfigException e) {
            throw refused(e, from);
        }
        swap(parsed, from);
        loaded = properties;
    }

    private void swap(RuleSet candidate, String from) {
        String changes;
        try {
            changes = live.replace(candidate);
        } catch (ConfigException e) {
            throw refused(e, from);
        }
        swapped.run();
        LOG.info("Sluice reloaded its rules from {}: {}", from, changes);
    }

    private static ConfigException refused(ConfigException e, String from) {
        LOG.error("Sluice refused the new rules from " + from + " and keeps serving the rules in effect. " + e.getMessage(),
                (Throwable) null);
        return e;
    }
}
