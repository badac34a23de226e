package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.EngineListener;
import io.sluice.engine.KeyNaming;
import io.sluice.engine.Ticker;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.rule.Throttling;
import io.sluice.spi.Batching;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Refunding;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The rate paths of the engine's rules: for each rule, the steps its requests go down, assembled once from what
 * the rule says (its {@link Shape}) and kept while a rule of that shape exists. A plan limits a rule's numbers,
 * never its shape, so the rule as any plan limits it goes down the same path; a reload brings new shapes.
 * Thread-safe.
 */
final class RatePath {
    /** What of a rule decides its path's steps: read here once, never on a request. */
    record Shape(boolean prefetches, boolean autoSized, Duration hold, Throttling throttling, boolean dryRun, boolean blocks) {

        /** {@code canPrefetch}: whether the backend can take permits ahead; a rule's {@code prefetch} needs it. */
        static Shape of(Rule rule, boolean canPrefetch) {
            var p = rule.ratePolicy();
            boolean blocks = rule.blocks() && !rule.dryRun();
            return p.prefetches() && canPrefetch
                    ? new Shape(true, p.prefetch().auto(), p.prefetchHold(), p.throttling(), rule.dryRun(), blocks)
                    : new Shape(false, false, Duration.ZERO, p.throttling(), rule.dryRun(), blocks);
        }

        /**
         * Whether the shield answers for the rule: not under soft or elastic throttling (the key may go past a
         * nominal "0 remaining": only the backend knows), not in dry run (such rules exist to measure), and not with
         * a block (a reset on any server lifts it: only the backend knows; a blocked key's requests are coalesced, one
         * call in flight per key).
         */
        boolean shielded() {
            return !dryRun && !blocks && throttling == Throttling.HARD;
        }

        /**
         * How long the shield may trust that nothing frees before the backend's reset: until then, unless the rule
         * prefetches a fixed size, since then any server may hand permits back, at the latest when its hold ends.
         * Stocks sized by demand ({@code auto}) hold a hundredth of the limit among all servers at most: a key under
         * attack stays shielded until its reset (not asked of Redis every hold), at the cost of that hundredth, handed
         * back by another server, waiting until then (this server forgets a key whose permits it hands back).
         */
        long shieldCapMillis() {
            return prefetches && !autoSized ? hold.toMillis() : Long.MAX_VALUE;
        }
    }

    private final LimiterBackend backend;
    /** Null for a backend that cannot refund: an elastic borrowing that went too far keeps what it took. */
    private final Refunding refunding;
    private final BackendGuard guard;
    private final KeyNaming naming;
    private final Ticker ticker;
    private final EngineListener listener;
    private final Supplier<RuleSet> rules;
    private final Shield shield;
    private final Lanes lanes;
    private final Prefetcher prefetcher;
    private final Refunds refunds;
    private final LeakySlot slot;
    private final ConcurrentHashMap<Shape, RateStep> paths = new ConcurrentHashMap<>();
    /**
     * The path each recent rule took, by the rule's identity: rules are parsed once, so a decision finds its path
     * without building and hashing the rule's {@link Shape} (a profile's share per quiet decision).
     */
    private final AtomicReferenceArray<Taken> recent = new AtomicReferenceArray<>(RECENT_RULES);
    /** Slots of {@link #recent}: a power of two, above the rules a request usually has. */
    private static final int RECENT_RULES = 16;

    /** A rule's first step. */
    private record Taken(Rule rule, RateStep first) {
    }

    RatePath(LimiterBackend backend, Batching batching, Refunding refunding, BackendGuard guard, KeyNaming naming, Ticker ticker, EngineListener listener,
             Supplier<RuleSet> rules, Shield shield, Prefetcher prefetcher, Refunds refunds, LeakySlot slot) {
        this.backend = backend;
        this.guard = guard;
        this.naming = naming;
        this.ticker = ticker;
        this.listener = listener;
        this.rules = rules;
        this.shield = shield;
        this.lanes = new Lanes(backend, batching, guard, shield);
        this.refunding = refunding;
        this.prefetcher = prefetcher;
        this.refunds = refunds;
        this.slot = slot;
    }

    /** The first step of {@code rule}'s path. */
    RateStep forRule(Rule rule) {
        int slot = System.identityHashCode(rule) & (RECENT_RULES - 1);
        Taken taken = recent.get(slot);
        if (taken != null && taken.rule() == rule) return taken.first();
        Shape shape = Shape.of(rule, prefetcher != null);
        RateStep first = paths.get(shape);
        if (first == null) first = paths.computeIfAbsent(shape, this::assemble);
        recent.set(slot, new Taken(rule, first));
        return first;
    }

    /** Drops the paths of shapes the rules may no longer have (after a reload); new ones are assembled on use. */
    void forget() {
        paths.clear();
        for (int i = 0; i < RECENT_RULES; i++) recent.set(i, null);
    }

    /** The steps of a rule of {@code shape}, top to bottom. */
    private RateStep assemble(Shape shape) {
        List<UnaryOperator<RateStep>> steps = new ArrayList<>();
        if (shape.prefetches()) steps.add(next -> new StockStep(prefetcher, guard, ticker, listener, next));
        if (shape.shielded()) steps.add(next -> new ShieldStep(shield, listener, next));
        if (shape.prefetches()) steps.add(next -> new PrefetchStep(prefetcher, shape.hold(), shape.shieldCapMillis(),
                shape.shielded() ? shield : null, guard, refunds, ticker, listener, next));
        if (shape.prefetches()) steps.add(next -> new OrderedStep(prefetcher, guard, ticker, next));
        steps.add(next -> new BreakerStep(guard, next));
        // This server's stock of the key is the key's: what remains counts it, as without prefetch.
        BackendStep.Remaining remaining = shape.prefetches() ? prefetcher::remaining : BackendStep.Remaining.BACKEND;
        RateStep path = new BackendStep(call(shape), remaining, slot, guard, refunds, listener);
        for (int i = steps.size() - 1; i >= 0; i--) path = steps.get(i).apply(path);
        return path;
    }

    /** Elastic borrowing (not coalesced: its calls span two keys), or the key's lane. */
    private RateCall call(Shape shape) {
        if (shape.throttling() == Throttling.ELASTIC) {
            // A dry-run rule never borrows: what it took would be missing from rules that enforce.
            return new ElasticCall(backend, refunding, guard, naming, shape.dryRun() ? null : rules);
        }
        return lanes.call(shape.shielded(), shape.shieldCapMillis());
    }
}
