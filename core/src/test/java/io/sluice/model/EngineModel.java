package io.sluice.model;

import io.sluice.Ending;
import io.sluice.key.KeySpec;
import io.sluice.memory.RateModel;
import io.sluice.rule.OverrideParser;
import io.sluice.rule.PlanLimits;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.rule.Settle;
import io.sluice.rule.Throttling;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.StoredOverride;
import io.sluice.spi.RateUsage;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A pure-Java reference of the whole engine as CONTRACT.md describes it, for one rule set that a reload may
 * replace, with time as a parameter (milliseconds). It knows nothing of Redis, prefetch (which the contract says
 * has no effect on decisions), deadlines or servers: it is what one engine must decide.
 *
 * <p>Evaluation: the rules matching the path, rate rules in name order, then concurrency rules in name order; a
 * request's plan selects each rule's limits (an {@code unlimited} plan skips the limit); the first rejection ends
 * the request, and the permits the request took from other rules, rate and concurrency, are given back (an
 * elastic rule's and a leaky bucket's rate permits stay taken: the engine cannot tell what an elastic decision
 * borrowed, and a slot passed cannot be given back). Rate
 * rules: the algorithms' reference models ({@link RateModel}) and {@link SlidingLogModel}; soft throttling
 * counts up to the effective limit; elastic throttling admits over the nominal limit only what its capacity
 * rule's {@code global} key pays for. Concurrency: a permit per request in flight whatever its plan; a request
 * over its plan's limit waits when the rule has {@code wait} (and is admitted once a permit it may take is free),
 * else is rejected. A reload keeps every counter: a changed limit applies to the current usage. An operator's override
 * of one key wins over its plan until it ends, and keeps the key's usage, as a plan does.
 */
public final class EngineModel {
    /** What the model decided for a whole request. */
    public enum Outcome { ADMITTED, REJECTED, WAITING }

    /** One rule's decision, as the engine reports it in {@code Admission.decisions()}. */
    public record RuleVerdict(String rule, boolean rate, boolean allowed, long remaining) {
        @Override
        public String toString() {
            return rule + (rate ? " rate " : " concurrency ") + (allowed ? "allowed" : "rejected") + (rate ? " remaining=" + remaining : "");
        }
    }

    /** The model's answer to a request: the outcome, the rule that rejected or holds it waiting, and each rule's decision. */
    public record Verdict(Outcome outcome, String by, List<RuleVerdict> rules) {
    }

    private RuleSet rules;
    private final Map<String, RateModel> buckets = new HashMap<>();
    private final Map<String, SlidingLogModel> logs = new HashMap<>();
    private final Map<String, ConcurrencyModel> concurrency = new HashMap<>();
    /** Operators' overrides by rule and counted key: the limit as written, and when it ends. */
    private final Map<String, StoredOverride> overrides = new HashMap<>();
    /** A rate counter's block ({@code block}): until when (ms) its key is rejected. */
    private final Map<String, Long> blockedUntil = new HashMap<>();
    /** The rate permits each admitted request took, by id, until it ends ({@link #end}). */
    private final Map<Integer, List<TakenRate>> takenBy = new HashMap<>();

    public EngineModel(RuleSet rules) {
        this.rules = rules;
    }

    /** Puts new rules in effect; every counter stays. */
    public void reload(RuleSet newRules) {
        this.rules = newRules;
    }

    public RuleSet rules() {
        return rules;
    }

    /** The rules that apply to a request of {@code path}, in name order, as the engine gets them. */
    public List<Rule> applicable(String path) {
        List<Rule> out = new ArrayList<>(rules.matching("GET", path));
        out.sort(Comparator.comparing(Rule::name));
        return out;
    }

    /**
     * Decides request {@code id} of key {@code key} on {@code plan} (null: none) for {@code path} at {@code now}.
     * A request that waits is admitted later through {@link #admitWaiter}.
     */
    public Verdict request(int id, String key, String plan, String path, long now) {
        List<Rule> applicable = applicable(path);
        List<RuleVerdict> verdicts = new ArrayList<>();
        List<Runnable> giveBack = new ArrayList<>();
        List<TakenRate> took = new ArrayList<>();
        for (Rule rule : applicable) {
            if (!rule.limitsRate() || keyOf(rule, key) == null) continue;
            Rule limits = limitsOf(rule, key, plan, true, now);
            if (limits == null) continue;
            long cost = rule.ratePolicy().costFor(path);
            RateVerdict v = rate(limits, keyOf(rule, key), cost, now);
            verdicts.add(new RuleVerdict(rule.name(), true, v.allowed, v.remaining));
            if (!v.allowed) {
                giveBack.forEach(Runnable::run);
                return new Verdict(Outcome.REJECTED, rule.name(), verdicts);
            }
            if (v.giveBack != null) giveBack.add(v.giveBack);
            took.add(new TakenRate(limits, keyOf(rule, key), cost, now, v.entry, v.overLimit, v.window));
        }
        List<ConcurrencyModel> taken = new ArrayList<>();
        for (Rule rule : applicable) {
            if (!rule.limitsConcurrency() || keyOf(rule, key) == null) continue;
            Rule limits = limitsOf(rule, key, plan, false, now);
            if (limits == null) continue;
            int limit = limits.concurrency();
            ConcurrencyModel c = concurrencyOf(rule, key);
            if (c.fits(limit)) {
                c.hold(id);
                taken.add(c);
                verdicts.add(new RuleVerdict(rule.name(), false, true, limit - c.inFlight()));
                continue;
            }
            if (!rule.waitTime().isZero()) {
                c.await(id, limit);
                // A waiter keeps the rate permits it took: once admitted, its ending decides about them; a wait that
                // ends without a permit gives them back (waitEnded).
                takenBy.put(id, took);
                return new Verdict(Outcome.WAITING, rule.name(), verdicts);
            }
            verdicts.add(new RuleVerdict(rule.name(), false, false, 0));
            taken.forEach(t -> t.release(id));
            giveBack.forEach(Runnable::run);
            return new Verdict(Outcome.REJECTED, rule.name(), verdicts);
        }
        takenBy.put(id, took);
        return new Verdict(Outcome.ADMITTED, null, verdicts);
    }

    /**
     * Redis lost its state (a restart without persistence): every counter starts again, and the permits of requests
     * still running are no longer counted (their releases find nothing).
     */
    public void stateLost() {
        takenBy.clear();
        buckets.clear();
        logs.clear();
        blockedUntil.clear();
        concurrency.values().forEach(ConcurrencyModel::forgetHeld);
    }

    /** The request ended: its concurrency permits (or its wait) are given back. */
    public void release(int id) {
        concurrency.values().forEach(c -> c.release(id));
    }

    /**
     * Rate permits of {@code cost} an admitted request took of {@code limits} for {@code key} at {@code at}; a log's in
     * {@code entry} (else null), which a give-back removes; over the nominal limit or within it (what paid for them,
     * and so where they go back); a window counter's in {@code window} (its outcome's entry, else null), whose counter
     * alone a give-back lowers.
     */
    private record TakenRate(Rule limits, String key, long cost, long at, SlidingLogModel.Entry entry, boolean overLimit,
                             Entry window) {
    }

    /** Permits given back to a rule's key after its request ended, and when that request was admitted. */
    public record GivenBack(Rule rule, String key, long permits, long admittedAt) {
    }

    /**
     * Request {@code id} ended so at {@code now}, its response reporting {@code reported} (negative: nothing; the
     * engine keeps the estimate) for each rule that settles from a header: a settleable rule is charged the report
     * instead of its cost (the difference taken past the limit, or given back), and a rule whose {@code count} does
     * not count the ending gives back what it took. A request that did not get in, or ended already, changes nothing.
     *
     * @return what went back, for the bounds
     */
    public List<GivenBack> end(int id, Ending ending, long reported, long now) {
        List<TakenRate> took = takenBy.remove(id);
        List<GivenBack> back = new ArrayList<>();
        if (took == null) return back;
        for (TakenRate t : took) {
            Rule limits = t.limits();
            if (limits.settle().fromHeader() && reported >= 0 && Settle.refusal(limits).isEmpty()) {
                long actual = Math.min(reported, Settle.mostOwed(limits));
                if (actual > t.cost()) charge(limits, t.key(), actual - t.cost(), now);
                if (actual < t.cost()) {
                    giveBack(limits, t.key(), t.cost() - actual, t.entry(), t.overLimit(), t.window(), now);
                    back.add(new GivenBack(limits, t.key(), t.cost() - actual, t.at()));
                }
            } else if (!limits.count().counts(ending)) {
                giveBack(limits, t.key(), t.cost(), t.entry(), t.overLimit(), t.window(), now);
                back.add(new GivenBack(limits, t.key(), t.cost(), t.at()));
            }
        }
        return back;
    }

    /**
     * Waiter {@code id}'s wait ended at {@code now} without a permit: the request is rejected, and, as CONTRACT.md's
     * Evaluation says of any rejection, the rate permits other rules took for it when it came go back (those a
     * rejection gives back: not an elastic rule's, not a leaky bucket's slot). A request not waiting changes nothing.
     *
     * @return what went back, for the bounds
     */
    public List<GivenBack> waitEnded(int id, long now) {
        concurrency.values().forEach(c -> c.release(id));
        List<TakenRate> took = takenBy.remove(id);
        List<GivenBack> back = new ArrayList<>();
        if (took == null) return back;
        for (TakenRate t : took) {
            Rule limits = t.limits();
            if (limits.ratePolicy().throttling() == Throttling.ELASTIC || !limits.ratePolicy().algorithm().refundable()) continue;
            giveBack(limits, t.key(), t.cost(), t.entry(), t.overLimit(), t.window(), now);
            back.add(new GivenBack(limits, t.key(), t.cost(), t.at()));
        }
        return back;
    }

    /**
     * Gives back {@code cost} permits of the key to what paid for them (within the nominal limit, that limit's count: a
     * token bucket's own tokens; over it, the overage's): a log its request's own {@code entry}, whatever came since; a
     * window counter off the counter of the {@code window} that counted the request, while it still counts.
     */
    private void giveBack(Rule limits, String key, long cost, SlidingLogModel.Entry entry, boolean overLimit, Entry window,
                          long now) {
        RateRequest r = paidFor(limits.ratePolicy().request(limits.name() + "|" + key, limits.rate().orElseThrow(), cost), overLimit);
        if (r.algorithm() == Algorithm.SLIDING_LOG) {
            SlidingLogModel log = logs.get(r.key() + "|" + r.period().toMillis());
            if (log != null && entry != null) log.refund(entry);
            return;
        }
        RateModel m = buckets.get(r.key() + "|" + r.algorithm());
        if (m != null) m.refund(r, window, now * 1000);
    }

    private void charge(Rule limits, String key, long cost, long now) {
        RateRequest r = limits.ratePolicy().request(limits.name() + "|" + key, limits.rate().orElseThrow(), cost);
        buckets.computeIfAbsent(r.key() + "|" + r.algorithm(), k -> RateModel.of(r.algorithm())).charge(r, now * 1000);
    }

    /** The concurrency state of a rule and key, for the test to check waiters and peaks against. */
    public ConcurrencyModel concurrency(String rule, String key) {
        return concurrency.computeIfAbsent(rule + "|" + key, k -> new ConcurrencyModel());
    }

    /**
     * The raw key a rule counts a caller under: a {@code global} rule counts everyone under one; null when the rule
     * does not count the caller (its {@code when} excludes it, its {@code exempt} names it, or its key does not
     * resolve, which a drawn rule skips).
     */
    public static String keyOf(Rule rule, String key) {
        if (!appliesTo(rule, key) || exempts(rule, key)) return null;
        return resolve(rule.key(), key);
    }

    // ---------------------------------------------------------------- who a request is: when, exempt, key=a|b

    /** A caller {@code anonymous@<address>} has no user; any other caller is the authenticated user of that name. */
    public static final String ANONYMOUS = "anonymous@";
    /** The address every authenticated caller comes from. */
    public static final String USERS_ADDRESS = "10.0.0.1";

    /** The caller's authenticated user, or null. */
    public static String userOf(String caller) {
        return caller.startsWith(ANONYMOUS) ? null : caller;
    }

    /** The caller's client address. */
    public static String addressOf(String caller) {
        return caller.startsWith(ANONYMOUS) ? caller.substring(ANONYMOUS.length()) : USERS_ADDRESS;
    }

    private static boolean appliesTo(Rule rule, String caller) {
        return switch (rule.when()) {
            case ALWAYS -> true;
            case ANONYMOUS -> userOf(caller) == null;
            case AUTHENTICATED -> userOf(caller) != null;
        };
    }

    /** The exemptions a scenario draws: {@code user:<name>} and {@code ip:<address>}, each matched exactly. */
    private static boolean exempts(Rule rule, String caller) {
        String text = rule.exempt().toString();
        if (text.isEmpty()) return false;
        for (String entry : text.split(",")) {
            String e = entry.trim();
            if (e.startsWith("user:") && e.substring(5).equals(userOf(caller))) return true;
            else if (e.startsWith("ip:") && e.substring(3).equals(addressOf(caller))) return true;
            else if (!e.startsWith("user:") && !e.startsWith("ip:")) throw new UnsupportedOperationException("exempt=" + e);
        }
        return false;
    }

    /** The first alternative that resolves; with several, named by its kind as the contract writes it. */
    private static String resolve(KeySpec key, String caller) {
        List<KeySpec.Alternative> alternatives = key.alternatives();
        for (KeySpec.Alternative a : alternatives) {
            if (a.parts().size() != 1) throw new UnsupportedOperationException("key=" + key);
            String v = switch (a.parts().get(0).kind()) {
                case GLOBAL -> "*";
                case USER -> userOf(caller);
                case IP -> addressOf(caller);
                default -> throw new UnsupportedOperationException("key=" + key);
            };
            if (v != null) return alternatives.size() == 1 ? v : a + "=" + v;
        }
        return null;
    }

    private ConcurrencyModel concurrencyOf(Rule rule, String key) {
        return concurrency(rule.name(), keyOf(rule, key));
    }

    /**
     * A rate rule's verdict: admitted, what gives its permits back, (a log's) the entry they are in, whether the overage
     * paid, and (a window counter's) the window that counted them.
     */
    private record RateVerdict(boolean allowed, long remaining, Runnable giveBack, SlidingLogModel.Entry entry, boolean overLimit,
                               Entry window) {
        RateVerdict(boolean allowed, long remaining, Runnable giveBack) {
            this(allowed, remaining, giveBack, null, false);
        }

        RateVerdict(boolean allowed, long remaining, Runnable giveBack, SlidingLogModel.Entry entry, boolean overLimit) {
            this(allowed, remaining, giveBack, entry, overLimit, null);
        }
    }

    /** The request as what paid for it: within the nominal limit, the request at that limit. */
    private static RateRequest paidFor(RateRequest r, boolean overLimit) {
        return overLimit ? r : r.withEffectiveLimit(r.limit());
    }

    private RateVerdict rate(Rule limits, String key, long cost, long now) {
        String counter = limits.name() + "|" + key;
        RateRequest request = limits.ratePolicy().request(counter, limits.rate().orElseThrow(), cost);
        if (limits.ratePolicy().throttling() == Throttling.ELASTIC) return elastic(limits, request, now);
        if (limits.blocks() && !limits.dryRun()) return blocking(limits, counter, () -> consume(request, now), now);
        return consume(request, now);
    }

    /**
     * {@code block}: a blocked counter is rejected with nothing left and takes nothing; a rejection of its own rate
     * blocks it for the rule's block.
     */
    private RateVerdict blocking(Rule limits, String counter, Supplier<RateVerdict> decision, long now) {
        if (blockedMillis(counter, now) > 0) return new RateVerdict(false, 0, null);
        RateVerdict v = decision.get();
        if (v.allowed) return v;
        blockedUntil.put(counter, now + limits.block().toMillis());
        return new RateVerdict(false, 0, null);
    }

    private long blockedMillis(String counter, long now) {
        Long until = blockedUntil.get(counter);
        return until == null || until <= now ? 0 : until - now;
    }

    /** What {@code Sluice.usage} says of a rate rule's key: what it may still take (0 while blocked), the block's time left. */
    public record KeyUsage(long remaining, long blockedMillis) {
    }

    /**
     * The usage of {@code key} under its override in effect, else {@code rule}'s own limits, at {@code now}, taking
     * nothing; null when an override makes the rate unlimited (no rate applies to the key).
     */
    public KeyUsage usage(Rule rule, String key, long now) {
        PlanLimits override = overrideOf(rule, key, now);
        if (override != null && override.rateUnlimited()) return null;
        Rule limits = override == null ? rule : override.applyTo(rule);
        String counter = rule.name() + "|" + keyOf(rule, key);
        long blocked = rule.blocks() && !rule.dryRun() ? blockedMillis(counter, now) : 0;
        if (blocked > 0) return new KeyUsage(0, blocked);
        RateRequest r = limits.ratePolicy().request(counter, limits.rate().orElseThrow(), 1);
        if (r.algorithm() == Algorithm.SLIDING_LOG) {
            SlidingLogModel log = logs.get(r.key() + "|" + r.period().toMillis());
            long period = r.period().toMillis();
            return new KeyUsage(log == null ? r.limit() : Math.max(0, r.limit() - log.used(period, now)), 0);
        }
        RateModel m = buckets.computeIfAbsent(r.key() + "|" + r.algorithm(), k -> RateModel.of(r.algorithm()));
        return new KeyUsage(m.consume(RateUsage.peekOf(r), now * 1000).remaining(), 0);
    }

    /** {@code Sluice.reset}: the key's counter and block are forgotten. */
    public void reset(Rule rule, String key) {
        String counter = rule.name() + "|" + keyOf(rule, key);
        blockedUntil.remove(counter);
        RateRequest r = rule.ratePolicy().request(counter, rule.rate().orElseThrow(), 1);
        logs.remove(r.key() + "|" + r.period().toMillis());
        buckets.remove(r.key() + "|" + r.algorithm());
    }

    /** A hard or soft decision: the key counts up to the effective limit; Remaining speaks of the nominal one. */
    private RateVerdict consume(RateRequest r, long now) {
        long micros = now * 1000;
        if (r.algorithm() == Algorithm.SLIDING_LOG) {
            SlidingLogModel log = logs.computeIfAbsent(r.key() + "|" + r.period().toMillis(), k -> new SlidingLogModel());
            long period = r.period().toMillis();
            SlidingLogModel.Entry entry = log.consume(r.cost(), r.effectiveLimit(), period, now);
            long remaining = Math.max(0, r.limit() - log.used(period, now));
            return new RateVerdict(entry != null, remaining, entry != null ? () -> log.refund(entry) : null, entry, false);
        }
        RateModel m = buckets.computeIfAbsent(r.key() + "|" + r.algorithm(), k -> RateModel.of(r.algorithm()));
        RateOutcome o = m.consume(r, micros);
        Runnable giveBack = o.allowed() && r.algorithm().refundable() ? () -> m.refund(paidFor(r, o.overLimit()), micros) : null;
        return new RateVerdict(o.allowed(), o.remaining(), giveBack, null, o.allowed() && o.overLimit(), o.entry());
    }

    /**
     * Elastic: within the nominal limit as a hard rule; over it, up to the overage, only when the capacity rule's
     * {@code global} key pays the same cost. A token bucket keeps its nominal refill: its overage is a deeper
     * bucket, never a faster one.
     */
    private RateVerdict elastic(Rule limits, RateRequest own, long now) {
        RateRequest nominal = own.withEffectiveLimit(own.limit());
        RateVerdict within = consume(nominal, now);
        if (within.allowed) return new RateVerdict(true, within.remaining, null);
        RateRequest deeper = own.algorithm() == Algorithm.TOKEN_BUCKET ? nominal.withBurst(own.effectiveBurst()) : own;
        RateVerdict over = consume(deeper, now);
        if (!over.allowed) return new RateVerdict(false, 0, null);
        Optional<Rule> capacity = limits.ratePolicy().capacity().flatMap(rules::get);
        RateVerdict paid = capacity.isEmpty() ? null : rate(capacity.get(), "*", own.cost(), now);
        if (paid == null || !paid.allowed) {
            if (over.giveBack != null) over.giveBack.run();
            return new RateVerdict(false, 0, null);
        }
        // What an elastic decision took stays taken when another rule rejects the request (its answer does not say
        // whether it borrowed), as the engine does.
        return new RateVerdict(true, 0, null);
    }

    /** An operator's override of one key of a rule, from {@code now} until {@code until} (the engines' clock). */
    public void override(String rule, String key, String limit, long until) {
        Rule r = rules.get(rule).orElseThrow();
        String counted = keyOf(r, key);
        overrides.put(rule + "|" + counted, new StoredOverride(rule, counted, limit, until));
    }

    /** The override of one key of a rule is cleared. */
    public void clearOverride(String rule, String key) {
        Rule r = rules.get(rule).orElseThrow();
        overrides.remove(rule + "|" + keyOf(r, key));
    }

    /**
     * The rule as it limits a request of {@code key} on {@code plan} at {@code now} for its rate or its concurrency:
     * the key's override while it lasts (parsed against the rules in effect; one they no longer accept is ignored)
     * wins over the plan, the plan over the rule; null when exempt ({@code unlimited}).
     */
    public Rule limitsOf(Rule rule, String key, String plan, boolean rate, long now) {
        PlanLimits p = rule.plans().lookup(plan);
        boolean planExempt = p != null && (rate ? p.rateUnlimited() : p.concurrencyUnlimited());
        Rule planned = p == null || planExempt ? rule : p.applyTo(rule);
        PlanLimits o = overrideOf(rule, key, now);
        if (o == null) return planExempt ? null : planned;
        return (rate ? o.rateUnlimited() : o.concurrencyUnlimited()) ? null : o.applyTo(planned);
    }

    /** The key's override in effect at {@code now}, or null. */
    public PlanLimits overrideOf(Rule rule, String key, long now) {
        StoredOverride o = overrides.get(rule.name() + "|" + keyOf(rule, key));
        if (o == null || o.untilMillis() <= now) return null;
        try {
            return OverrideParser.parse(rule, o.limit());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
