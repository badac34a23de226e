package io.sluice.engine;

import io.sluice.Usage;
import io.sluice.engine.rate.RateDecider;
import io.sluice.key.KeyResolver;
import io.sluice.rule.PlanLimits;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.spi.KeyControl;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateRequest;
import io.sluice.spi.RateUsage;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Looks up and resets one key of a rule for operators ({@code Sluice.usage}, {@code Sluice.reset}), through the
 * backend's {@link KeyControl}. The key value is hashed as a request's is, and never logged. Thread-safe.
 */
public final class KeyControls {
    private final Supplier<RuleSet> rules;
    /** Null when the backend cannot look keys up. */
    private final KeyControl control;
    private final KeyNaming naming;
    private final RateDecider rates;
    private final Leases leases;
    /** A key's override wins over the rule, as it does for its requests. */
    private final Overrides overrides;

    KeyControls(Supplier<RuleSet> rules, LimiterBackend backend, KeyNaming naming, RateDecider rates, Leases leases,
                Overrides overrides) {
        this.overrides = overrides;
        this.rules = rules;
        this.control = backend instanceof KeyControl c ? c : null;
        this.naming = naming;
        this.rates = rates;
        this.leases = leases;
    }

    /**
     * What a request of {@code raw} would see under {@code ruleName} now, taking nothing: under the key's override when
     * it has one (no part for a limit the override makes {@code unlimited}), else under the rule's own limits.
     */
    public CompletionStage<Usage> usage(String ruleName, String raw) {
        Rule rule = rule(ruleName);
        String key = keyOf(rule, raw);
        PlanLimits override = overrides.lookup(rule, key);
        Rule limits = override == null ? rule : override.applyTo(rule);
        boolean rateApplies = rule.limitsRate() && (override == null || !override.rateUnlimited());
        boolean concurrencyApplies = rule.limitsConcurrency() && (override == null || !override.concurrencyUnlimited());
        CompletionStage<RateUsage> rate = rateApplies ? control().peek(request(limits, key))
                : CompletableFuture.completedFuture(null);
        CompletionStage<Integer> free = concurrencyApplies ? leases.available(limits, key)
                : CompletableFuture.completedFuture(null);
        return rate.thenCombine(free, (r, f) -> new Usage(rule.name(),
                Optional.ofNullable(r).map(u -> new Usage.RateLimit(limits.rate().get().permits(), u.remaining(),
                        Duration.ofMillis(u.resetMillis()))),
                Optional.ofNullable(f).map(available -> new Usage.ConcurrencyLimit(limits.concurrency(),
                        Math.max(0, limits.concurrency() - available))),
                r == null ? Duration.ZERO : Duration.ofMillis(r.blockedMillis())));
    }

    /**
     * Forgets the rate usage and the block of {@code raw} under {@code ruleName} in the backend, and what this server's
     * shield knows of it. Concurrency permits held stay held: their requests are running.
     */
    public CompletionStage<Void> reset(String ruleName, String raw) {
        Rule rule = rule(ruleName);
        if (!rule.limitsRate()) return CompletableFuture.completedFuture(null);
        String key = keyOf(rule, raw);
        RateRequest request = request(rule, key);
        return control().forget(request).thenRun(() -> rates.forgetKey(rule, key));
    }

    private Rule rule(String name) {
        return rules.get().get(name).orElseThrow(() -> new IllegalArgumentException("no rule named " + name));
    }

    /** A {@code global} rule has one key whatever the caller names. */
    private static String keyOf(Rule rule, String raw) {
        if (rule.key().global()) return KeyResolver.GLOBAL;
        if (raw == null || raw.isEmpty()) throw new IllegalArgumentException("a key value is needed for rule " + rule.name());
        return raw;
    }

    private RateRequest request(Rule rule, String raw) {
        return RateDecider.blocking(rule, rule.ratePolicy().request(naming.rate(rule, raw), rule.rate().orElseThrow(), 1));
    }

    private KeyControl control() {
        if (control == null) throw new UnsupportedOperationException("the backend cannot look up or reset keys");
        return control;
    }
}
