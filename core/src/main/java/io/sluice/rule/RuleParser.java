package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.key.ClientAddressHeader;
import io.sluice.key.Exemptions;
import io.sluice.key.KeySpec;
import io.sluice.key.TrustedProxies;
import io.sluice.spi.Algorithm;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the properties of a rules file into a {@link RuleSet}, once, at start-up. Every problem of the
 * file is collected and reported together in one {@link ConfigException}, each naming the property,
 * the bad value and the expected form. Unknown {@code sluice.*} properties are errors.
 */
public final class RuleParser {
    public static final String PREFIX = "sluice.";
    private static final String RULES = "sluice.rules.";
    private static final Pattern RULE_PROPERTY = Pattern.compile("sluice\\.rules\\.([^.]*)\\.(.+)");
    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9_-]+");
    private static final Pattern KEY_PREFIX = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]{1,20}");
    /** Every global property; docs/rules.md lists each (RulesReferenceTest). */
    static final Set<String> GLOBALS = Set.of(
            "sluice.redis.address", "sluice.redis.config", "sluice.key-prefix", "sluice.on-backend-failure",
            "sluice.trusted-proxies", "sluice.client-address-header", "sluice.headers", "sluice.backend-timeout", "sluice.max-clock-skew",
            "sluice.await-backend", "sluice.reload", "sluice.problem-type", "sluice.allow-no-rules", "sluice.local-share",
            "sluice.redis.transport");
    /** Every rule property but the plans' ({@link PlanParser}); docs/rules.md lists each (RulesReferenceTest). */
    static final Set<String> RULE_PROPERTIES = Set.of(
            "rate", "concurrency", "lease", "wait", "paths", "methods", "key", "on-missing-key", "status", "mode",
            "on-backend-failure", "algorithm", "burst", "queue", "throttling", "overage", "capacity", "cost", "costs", "plan",
            "problem-type", "prefetch", "prefetch-hold", "exempt", "when", "block", "count", "settle");
    /**
     * The dashed words of Sluice's property names ({@code key-prefix}, {@code on-backend-failure}, ...): an environment
     * variable cannot carry a dash, so a configuration source that maps variables to properties puts it back from these.
     *
     * @return every global and rule property name part with a dash
     */
    public static Set<String> dashedWords() {
        Set<String> dashed = new TreeSet<>();
        for (String name : GLOBALS) {
            for (String part : name.split("\\.")) if (part.contains("-")) dashed.add(part);
        }
        for (String name : RULE_PROPERTIES) if (name.contains("-")) dashed.add(name);
        return Set.copyOf(dashed);
    }

    /** The properties that shape how a rate counts; each needs a {@code rate}. */
    private static final List<String> RATE_POLICY_PROPERTIES =
            List.of("algorithm", "burst", "queue", "throttling", "overage", "capacity", "cost", "costs", "prefetch", "prefetch-hold");
    /** A prefetch hold is at most this share of the period, and by default at most {@link #DEFAULT_PREFETCH_HOLD}. */
    static final int PREFETCH_HOLD_SHARE = 10;
    static final Duration DEFAULT_PREFETCH_HOLD = Duration.ofSeconds(1);
    /** The shortest and longest {@code block}: a block shorter than a second is no lock-out; a week is plenty. */
    static final Duration MIN_BLOCK = Duration.ofSeconds(1);
    static final Duration MAX_BLOCK = Duration.ofDays(7);
    private static final Pattern OVERAGE = Pattern.compile("(\\d{1,4})\\s*%");
    private static final int MAX_OVERAGE_PERCENT = 1000;
    private static final String PROBLEM_TYPE =
            "an absolute URI such as https://example.com/problems/rate-limited, or about:blank";
    private static final String WHOLE_COST = "a whole number of permits from 1 to " + RatePolicy.MAX_COST + " such as 5";
    static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** A shorter {@code sluice.reload} would read the file more often than anyone edits it. */
    private static final long MIN_RELOAD_MILLIS = 100;
    static final Duration MIN_LEASE = Duration.ofSeconds(1);
    private static final String FAILURE_POLICIES = "allow, deny or local";

    private final List<String> problems = new ArrayList<>();
    /** The {@code sluice.*} entries with their placeholders resolved. */
    private final Map<String, String> props = new TreeMap<>();
    /** The same entries as written, for messages: a placeholder's value is never shown. */
    private final Map<String, String> written = new TreeMap<>();
    /** Entries with a placeholder that nothing resolves: reported once, not again as a bad value. */
    private final Set<String> unresolved = new HashSet<>();

    private RuleParser(Map<String, String> properties, Placeholders placeholders) {
        properties.forEach((k, v) -> {
            if (!k.startsWith(PREFIX)) return;
            String value = v == null ? "" : v.trim();
            written.put(k, value);
            int before = problems.size();
            props.put(k, placeholders.resolve(k, value, problems));
            if (problems.size() > before) unresolved.add(k);
        });
    }

    /**
     * Parses the {@code sluice.*} entries, resolving {@code ${NAME}} and {@code ${NAME:default}} placeholders
     * from system properties and environment variables; entries outside {@code sluice.} are ignored.
     */
    public static RuleSet parse(Map<String, String> properties) {
        return parse(properties, Placeholders.SYSTEM);
    }

    static RuleSet parse(Map<String, String> properties, Placeholders placeholders) {
        return new RuleParser(properties, placeholders).parse();
    }

    private RuleSet parse() {
        Map<String, Map<String, String>> byRule = new TreeMap<>();
        for (Map.Entry<String, String> e : props.entrySet()) {
            String k = e.getKey();
            if (GLOBALS.contains(k)) continue;
            Matcher m = RULE_PROPERTY.matcher(k);
            if (k.startsWith(RULES) && m.matches()) {
                String name = m.group(1);
                String property = m.group(2);
                if (!RULE_NAME.matcher(name).matches()) {
                    problem(k, e.getValue(), "a rule name of letters, digits, '_' and '-' such as sluice.rules.posts.rate");
                } else if (!RULE_PROPERTIES.contains(property) && !PlanParser.isPlanProperty(property)) {
                    problem(k, e.getValue(), "one of the rule properties " + new TreeSet<>(RULE_PROPERTIES)
                            + " or plans.<plan>.rate|burst|concurrency");
                } else {
                    byRule.computeIfAbsent(name, n -> new TreeMap<>()).put(property, e.getValue());
                }
            } else {
                problem(k, e.getValue(), "a known property: one of " + new TreeSet<>(GLOBALS)
                        + " or sluice.rules.<name>.<property>");
            }
        }
        Settings settings = settings();
        String problemType = value("sluice.problem-type", Rule.DEFAULT_PROBLEM_TYPE, RuleParser::problemType, PROBLEM_TYPE);
        List<Rule> rules = new ArrayList<>();
        byRule.forEach((name, p) -> rule(name, p, settings, problemType).ifPresent(rules::add));
        capacities(byRule, rules);
        if (!problems.isEmpty()) throw new ConfigException(problems);
        return new RuleSet(settings, rules);
    }

    private Settings settings() {
        Optional<String> address = Optional.ofNullable(props.get("sluice.redis.address"));
        address.ifPresent(a -> {
            if (!a.matches("rediss?://[^\\s]+")) {
                problem("sluice.redis.address", a, "redis://host:port or rediss://host:port");
            }
        });
        Optional<String> config = Optional.ofNullable(props.get("sluice.redis.config"));
        config.ifPresent(c -> {
            if (c.isBlank()) problem("sluice.redis.config", c, "a location such as classpath:redisson.yaml or file:/etc/redisson.yaml");
        });
        String prefix = value("sluice.key-prefix", "sluice", s -> KEY_PREFIX.matcher(s).matches() ? s : null,
                "1 to 64 letters, digits, '_', '-', '.' or ':' (no braces)");
        FailurePolicy failure = value("sluice.on-backend-failure", FailurePolicy.ALLOW, RuleParser::failurePolicy, FAILURE_POLICIES);
        TrustedProxies proxies = value("sluice.trusted-proxies", TrustedProxies.NONE,
                s -> TrustedProxies.parse(s).orElse(null), TrustedProxies.EXPECTED);
        ClientAddressHeader clientAddressHeader = value("sluice.client-address-header", ClientAddressHeader.X_FORWARDED_FOR,
                s -> ClientAddressHeader.parse(s).orElse(null), ClientAddressHeader.EXPECTED);
        HeaderStyle headers = value("sluice.headers", HeaderStyle.ALL,
                s -> enumValue(HeaderStyle.class, s), "all, ietf, legacy or none");
        Duration timeout = value("sluice.backend-timeout", Settings.DEFAULT_BACKEND_TIMEOUT,
                s -> Durations.parse(s).filter(d -> d.toMillis() >= 1).orElse(null), "a positive duration such as 100ms");
        Duration skew = value("sluice.max-clock-skew", Settings.DEFAULT_MAX_CLOCK_SKEW,
                s -> Durations.parse(s).orElse(null), "a duration such as 500ms");
        Duration awaitBackend = value("sluice.await-backend", Settings.DEFAULT_AWAIT_BACKEND,
                s -> Durations.parse(s).orElse(null), "a duration such as 10s (0s: do not wait)");
        Duration reload = value("sluice.reload", Settings.DEFAULT_RELOAD,
                s -> Durations.parse(s).filter(d -> d.isZero() || d.toMillis() >= MIN_RELOAD_MILLIS).orElse(null),
                "a duration of at least 100ms such as 10s (0s: never)");
        boolean allowNoRules = value("sluice.allow-no-rules", false, RuleParser::bool, "true or false");
        int localShare = value("sluice.local-share", Settings.LOCAL_SHARE_FROM_BACKEND, RuleParser::localShare,
                "a whole number of servers from " + Settings.MIN_LOCAL_SHARE + " to " + Settings.MAX_LOCAL_SHARE + " such as 3");
        RedisTransport transport = value("sluice.redis.transport", RedisTransport.AUTO,
                s -> enumValue(RedisTransport.class, s), RedisTransport.EXPECTED);
        if (config.isPresent() && props.containsKey("sluice.redis.transport")) {
            // The YAML is passed through untouched: its own transportMode decides, and one setting has one home.
            problem("sluice.redis.transport", props.get("sluice.redis.transport"),
                    "no value beside sluice.redis.config (set transportMode in the Redisson YAML file instead)");
        }
        return new Settings(address, config, prefix, failure, proxies, clientAddressHeader, headers, timeout, skew,
                awaitBackend, reload, allowNoRules, localShare, transport);
    }

    private static Integer localShare(String s) {
        if (!s.matches("\\d{1,5}")) return null;
        int n = Integer.parseInt(s);
        return n >= Settings.MIN_LOCAL_SHARE && n <= Settings.MAX_LOCAL_SHARE ? n : null;
    }

    private static Boolean bool(String s) {
        return s.equalsIgnoreCase("true") ? Boolean.TRUE : s.equalsIgnoreCase("false") ? Boolean.FALSE : null;
    }

    private Optional<Rule> rule(String name, Map<String, String> p, Settings settings, String defaultProblemType) {
        int before = problems.size();
        String base = RULES + name + ".";
        Optional<Rate> rate = Optional.ofNullable(p.get("rate")).flatMap(v -> {
            Optional<Rate> r = Rate.parse(v);
            if (r.isEmpty()) problem(base + "rate", v, Rate.EXPECTED);
            return r;
        });
        int concurrency = 0;
        if (p.containsKey("concurrency")) {
            String v = p.get("concurrency");
            Integer c = v.matches("\\d{1,9}") ? Integer.valueOf(v) : null;
            if (c == null || c < 1) problem(base + "concurrency", v, "a whole number of requests in flight, at least 1, such as 4");
            else concurrency = c;
        }
        if (!p.containsKey("rate") && !p.containsKey("concurrency")) {
            problems.add(base + "rate = (missing): expected a rate such as " + base + "rate=10/1h, or a concurrency such as "
                    + base + "concurrency=4, or both");
        }
        boolean concurrent = p.containsKey("concurrency");
        Duration lease = ruleValue(p, base, "lease", DEFAULT_LEASE,
                s -> Durations.parse(s).filter(d -> d.compareTo(MIN_LEASE) >= 0).orElse(null), "a duration of at least 1s such as 30s");
        Duration wait = ruleValue(p, base, "wait", Duration.ZERO, s -> Durations.parse(s).orElse(null), Durations.EXPECTED);
        Duration minLease = settings.maxClockSkew().multipliedBy(2);
        if (concurrent && lease.compareTo(minLease) < 0) {
            problem(base + "lease", p.getOrDefault("lease", Durations.format(lease)), "a lease of at least twice sluice.max-clock-skew ("
                    + Durations.format(minLease) + "), since servers with skewed clocks disagree on when a lease ends");
        }
        if (!concurrent && p.containsKey("lease")) problem(base + "lease", p.get("lease"), "lease only on a rule with concurrency");
        if (!concurrent && p.containsKey("wait")) problem(base + "wait", p.get("wait"), "wait only on a rule with concurrency");
        List<PathPattern> paths = ruleValue(p, base, "paths", List.of(), RuleParser::paths, PathPattern.EXPECTED);
        Set<String> methods = ruleValue(p, base, "methods", Set.of(), RuleParser::methods, "comma-separated HTTP methods such as GET, POST");
        KeySpec key = ruleValue(p, base, "key", KeySpec.IP, s -> KeySpec.parse(s).orElse(null), KeySpec.EXPECTED);
        MissingKeyPolicy missing = ruleValue(p, base, "on-missing-key", MissingKeyPolicy.SKIP,
                s -> enumValue(MissingKeyPolicy.class, s), "skip or deny");
        int status = ruleValue(p, base, "status", 429, s -> s.matches("[45]\\d\\d") ? Integer.valueOf(s) : null,
                "an HTTP status code from 400 to 599 such as 429");
        Mode mode = ruleValue(p, base, "mode", Mode.ENFORCE, s -> enumValue(Mode.class, s), "enforce or dry-run");
        FailurePolicy failure = ruleValue(p, base, "on-backend-failure", settings.onBackendFailure(),
                RuleParser::failurePolicy, FAILURE_POLICIES);
        RatePolicy policy = ratePolicy(p, base, rate);
        Plans plans = new PlanParser(this::problem, problems::add).parse(p, base, rate, concurrency, policy);
        String problemType = ruleValue(p, base, "problem-type", defaultProblemType, RuleParser::problemType, PROBLEM_TYPE);
        When when = when(p, base, key);
        Exemptions exempt = exemptions(p, base);
        Duration block = block(p, base, policy);
        CountPolicy count = ruleValue(p, base, "count", CountPolicy.ALL, s -> CountPolicy.parse(s).orElse(null), CountPolicy.EXPECTED);
        Settle settle = ruleValue(p, base, "settle", Settle.NONE, s -> Settle.parse(s).orElse(null), Settle.EXPECTED);
        if (problems.size() > before) return Optional.empty();
        if (!p.containsKey("prefetch") && !AutoPrefetch.worthIt(rate, plans, policy, block, settle)) {
            policy = policy.withPrefetch(PrefetchSize.OFF, Duration.ZERO);
        }
        Rule rule = new Rule(name, rate, concurrency, lease, wait, paths, methods, key, missing, status, mode, failure,
                policy, plans, problemType, when, exempt, block, count, settle);
        afterResponse(rule, p, base);
        return problems.size() > before ? Optional.empty() : Optional.of(rule);
    }

    /** {@code when}; {@code anonymous} with a key that needs a user in every alternative would never count anything. */
    private When when(Map<String, String> p, String base, KeySpec key) {
        When when = ruleValue(p, base, "when", When.ALWAYS, s -> enumValue(When.class, s), "always, anonymous or authenticated");
        if (when == When.ANONYMOUS && !key.resolvesWithoutUser()) {
            problem(base + "when", p.get("when"), "always or authenticated with key " + key
                    + " (an anonymous request has no user, so the rule would never count one), or a key such as user|ip");
        }
        return when;
    }

    /** {@code exempt}: each entry checked, a {@code header:} entry refused with the reason. */
    private Exemptions exemptions(Map<String, String> p, String base) {
        String v = p.get("exempt");
        if (v == null) return Exemptions.NONE;
        try {
            return Exemptions.parse(v);
        } catch (IllegalArgumentException e) {
            problem(base + "exempt", v, Exemptions.EXPECTED + "; " + e.getMessage());
            return Exemptions.NONE;
        }
    }

    /**
     * {@code block}: a duration from {@link #MIN_BLOCK} to {@link #MAX_BLOCK}, on a rule with a rate (a block starts
     * with a rate rejection), neither prefetching (a server's stock would admit past the block) nor elastic (a
     * borrowed permit is decided by another rule's spare).
     */
    private Duration block(Map<String, String> p, String base, RatePolicy policy) {
        if (!p.containsKey("block")) return Duration.ZERO;
        String v = p.get("block");
        Duration block = ruleValue(p, base, "block", Duration.ZERO,
                s -> Durations.parse(s).filter(d -> d.compareTo(MIN_BLOCK) >= 0 && d.compareTo(MAX_BLOCK) <= 0).orElse(null),
                "a duration from 1s to 7d such as 15m");
        if (!p.containsKey("rate")) {
            problem(base + "block", v, "block only on a rule with rate (a block starts when the rate rejects a key)");
        } else if (p.containsKey("prefetch") && policy.prefetches()) {
            problem(base + "block", v, "block without prefetch (a server's prefetched permits would admit a blocked key)");
        } else if (policy.throttling() == Throttling.ELASTIC) {
            problem(base + "block", v, "block with throttling=hard or soft");
        }
        return block;
    }

    /**
     * {@code count} and {@code settle}, checked against the rest: both give permits back after the response, which
     * needs a rate counted by a refundable algorithm and not borrowed from a capacity rule; a settlement also takes
     * permits past the limit ({@link Settle#refusal}).
     */
    private void afterResponse(Rule rule, Map<String, String> p, String base) {
        if (!rule.count().all()) {
            RatePolicy policy = rule.ratePolicy();
            if (!rule.limitsRate()) {
                problem(base + "count", p.get("count"), "count only on a rule with rate (what is given back is rate permits)");
            } else if (!policy.algorithm().refundable()) {
                problem(base + "count", p.get("count"), "count only with an algorithm that can give permits back (not "
                        + policy.algorithm() + ")");
            } else if (policy.throttling() == Throttling.ELASTIC) {
                problem(base + "count", p.get("count"), "count only with throttling=hard or soft (an elastic request may have "
                        + "borrowed from its capacity rule)");
            }
        }
        if (rule.settle().fromHeader()) {
            Settle.refusal(rule).ifPresent(why -> problem(base + "settle", p.get("settle"), why));
        }
    }

    /** The rate rule's algorithm, throttling and costs; every property checked against the others. */
    private RatePolicy ratePolicy(Map<String, String> p, String base, Optional<Rate> rate) {
        if (!p.containsKey("rate")) {
            for (String property : RATE_POLICY_PROPERTIES) {
                if (p.containsKey(property)) problem(base + property, p.get(property), property + " only on a rule with rate");
            }
            return RatePolicy.DEFAULT;
        }
        Algorithm algorithm = ruleValue(p, base, "algorithm", Algorithm.SLIDING_LOG,
                s -> Algorithm.parse(s).orElse(null), Algorithm.EXPECTED);
        long ahead = rate.map(r -> Math.min(Rate.MAX_PERMITS, r.permits() * RatePolicy.MAX_PERIODS_AHEAD)).orElse(Rate.MAX_PERMITS);
        long burst = ruleValue(p, base, "burst", 0L, s -> whole(s, 1, ahead), burstExpected(ahead));
        if (p.containsKey("burst") && algorithm != Algorithm.TOKEN_BUCKET) {
            problem(base + "burst", p.get("burst"), "burst only with algorithm=token-bucket");
        }
        long queue = ruleValue(p, base, "queue", 0L, s -> whole(s, 0, ahead),
                "a whole number of waiting requests from 0 to " + ahead + " (" + RatePolicy.MAX_PERIODS_AHEAD
                        + " times the rate's permits, at most " + Rate.MAX_PERMITS + ") such as 5");
        if (p.containsKey("queue") && algorithm != Algorithm.LEAKY_BUCKET) {
            problem(base + "queue", p.get("queue"), "queue only with algorithm=leaky-bucket");
        }
        Throttling throttling = ruleValue(p, base, "throttling", Throttling.HARD,
                s -> enumValue(Throttling.class, s), "hard, soft or elastic");
        if (throttling == Throttling.ELASTIC && algorithm == Algorithm.LEAKY_BUCKET) {
            problem(base + "throttling", p.get("throttling"),
                    "hard or soft with algorithm=leaky-bucket (a pace has no permits to borrow and hand back)");
        }
        int overage = ruleValue(p, base, "overage", throttling == Throttling.ELASTIC ? RatePolicy.DEFAULT_ELASTIC_OVERAGE
                        : throttling == Throttling.SOFT ? RatePolicy.DEFAULT_SOFT_OVERAGE : 0, RuleParser::percent,
                "a percentage from 1% to " + MAX_OVERAGE_PERCENT + "% such as 20%");
        if (p.containsKey("overage") && throttling == Throttling.HARD) {
            problem(base + "overage", p.get("overage"), "overage only with throttling=soft or throttling=elastic");
        }
        Optional<String> capacity = Optional.ofNullable(p.get("capacity"));
        if (throttling == Throttling.ELASTIC && capacity.isEmpty()) {
            problems.add(base + "capacity = (missing): expected the name of a rule with key global and a rate, whose spare "
                    + "permits pay for requests over the limit (throttling=elastic needs one)");
        }
        if (capacity.isPresent() && throttling != Throttling.ELASTIC) {
            problem(base + "capacity", capacity.get(), "capacity only with throttling=elastic");
        }
        long cost = ruleValue(p, base, "cost", 1L, s -> whole(s, 1, RatePolicy.MAX_COST), WHOLE_COST);
        List<PathCost> costs = ruleValue(p, base, "costs", List.of(), RuleParser::costs, PathCost.EXPECTED);
        PrefetchSize prefetch = ruleValue(p, base, "prefetch", PrefetchSize.AUTO, s -> PrefetchSize.parse(s).orElse(null),
                PrefetchSize.EXPECTED);
        // Unasked, auto only where a prefetch is allowed at all; asked for, the checks below name what forbids it.
        if (!p.containsKey("prefetch") && !AutoPrefetch.allowed(rate, algorithm, throttling)) prefetch = PrefetchSize.OFF;
        Duration hold = prefetchHold(p, base, rate, algorithm, throttling, prefetch);
        RatePolicy policy = new RatePolicy(algorithm, burst, queue, throttling, overage, capacity, cost, costs, prefetch, hold);
        rate.ifPresent(r -> {
            long most = policy.capacityFor(r.permits());
            if (most == 0) return;
            String why = "at most " + most + ", the most the rule admits at once ("
                    + (algorithm == Algorithm.TOKEN_BUCKET ? "burst" : "its rate") + (overage > 0 ? " with overage" : "") + ")";
            if (cost > most) problem(base + "cost", p.get("cost"), "a cost of " + why);
            if (costs.stream().anyMatch(c -> c.cost() > most)) problem(base + "costs", p.get("costs"), "costs of " + why);
        });
        return policy;
    }

    /**
     * {@code prefetch} and {@code prefetch-hold}, checked against the rest: every algorithm but the leaky bucket (whose
     * pace a stock would bypass; the others take a run of permits at once and hand back the unused ones exactly), only
     * under hard throttling (soft and elastic
     * decide past the limit, which only the backend knows), fewer permits than the rate, and a hold of at most a tenth
     * of the period (its log entries count from the hold's end).
     */
    private Duration prefetchHold(Map<String, String> p, String base, Optional<Rate> rate, Algorithm algorithm,
                                  Throttling throttling, PrefetchSize prefetch) {
        if (!prefetch.on()) {
            if (p.containsKey("prefetch-hold")) problem(base + "prefetch-hold", p.get("prefetch-hold"), "prefetch-hold only with prefetch");
            return Duration.ZERO;
        }
        if (algorithm == Algorithm.LEAKY_BUCKET) {
            problem(base + "prefetch", p.get("prefetch"), "prefetch only with algorithm=sliding-log, token-bucket, fixed-window or"
                    + " sliding-window (a leaky bucket paces requests one slot at a time: a server's stock would admit them unpaced)");
        }
        if (throttling != Throttling.HARD) problem(base + "prefetch", p.get("prefetch"), "prefetch only with throttling=hard");
        Duration period = rate.map(Rate::period).orElse(Duration.ZERO);
        Duration most = period.dividedBy(PREFETCH_HOLD_SHARE);
        rate.filter(r -> prefetch.permits() >= r.permits()).ifPresent(r -> problem(base + "prefetch", p.get("prefetch"),
                "fewer permits than the rate's " + r.permits()));
        Duration fallback = prefetch.auto() ? AutoPrefetch.hold(period)
                : most.compareTo(DEFAULT_PREFETCH_HOLD) < 0 ? most : DEFAULT_PREFETCH_HOLD;
        Duration hold = ruleValue(p, base, "prefetch-hold", fallback,
                s -> Durations.parse(s).filter(d -> d.toMillis() >= 1 && d.compareTo(most) <= 0).orElse(null),
                "a duration from 1ms to a tenth of the rate's period (" + Durations.format(most) + ") such as 500ms");
        if (hold.toMillis() < 1) {
            problem(base + "prefetch", p.get("prefetch"), "prefetch only with a rate period of at least 10ms");
        }
        return hold;
    }

    /**
     * An elastic rule's {@code capacity} must name a rule that exists, is keyed {@code global} and has a rate: its
     * spare permits pay for the elastic rule's requests over the limit.
     */
    private void capacities(Map<String, Map<String, String>> byRule, List<Rule> rules) {
        Map<String, Rule> built = new TreeMap<>();
        rules.forEach(r -> built.put(r.name(), r));
        String expected = "the name of another rule with key global and a rate";
        for (Rule r : rules) {
            Optional<String> capacity = r.ratePolicy().capacity();
            if (capacity.isEmpty()) continue;
            String property = RULES + r.name() + ".capacity";
            String target = capacity.get();
            if (!byRule.containsKey(target) || target.equals(r.name())) {
                problem(property, target, expected + "; no such other rule");
                continue;
            }
            Rule other = built.get(target);
            if (other == null) continue; // its own problems are reported
            if (!other.key().global()) {
                problem(property, target, expected + "; rule " + target + " has key " + other.key());
            } else if (!other.limitsRate()) {
                problem(property, target, expected + "; rule " + target + " has no rate");
            } else if (other.ratePolicy().throttling() == Throttling.ELASTIC) {
                // What it lent over its own limit would be paid for by nobody.
                problem(property, target, expected + "; rule " + target + " is elastic itself");
            }
        }
    }

    /**
     * An absolute URI (or {@code about:blank}) of printable ASCII: it is written into a JSON string as it is, so it
     * may hold nothing that needs escaping ({@link URI} refuses quotes, backslashes, spaces and controls).
     */
    private static String problemType(String s) {
        if (!s.chars().allMatch(c -> c > ' ' && c < 0x7f)) return null;
        try {
            URI uri = new URI(s);
            return uri.isAbsolute() ? s : null;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** A whole number from {@code min} to {@code max} (written in at most 18 digits), else null. */
    static Long whole(String s, long min, long max) {
        if (!s.matches("\\d{1,18}")) return null;
        long v = Long.parseLong(s);
        return v >= min && v <= max ? v : null;
    }

    /** What a {@code burst} may be when a full bucket may hold {@code most} tokens. */
    static String burstExpected(long most) {
        return "a whole number of requests from 1 to " + most + " (" + RatePolicy.MAX_PERIODS_AHEAD
                + " times the rate's permits, at most " + Rate.MAX_PERMITS + ") such as 20";
    }

    private static Integer percent(String s) {
        Matcher m = OVERAGE.matcher(s);
        if (!m.matches()) return null;
        int v = Integer.parseInt(m.group(1));
        return v >= 1 && v <= MAX_OVERAGE_PERCENT ? v : null;
    }

    private static List<PathCost> costs(String s) {
        List<PathCost> out = new ArrayList<>();
        for (String entry : s.split(",", -1)) {
            int eq = entry.lastIndexOf('=');
            if (eq < 0) return null;
            Optional<PathPattern> pattern = PathPattern.parse(entry.substring(0, eq));
            Long cost = whole(entry.substring(eq + 1).trim(), 1, RatePolicy.MAX_COST);
            if (pattern.isEmpty() || cost == null) return null;
            out.add(new PathCost(pattern.get(), cost));
        }
        return out;
    }

    private static List<PathPattern> paths(String s) {
        List<PathPattern> out = new ArrayList<>();
        for (String part : s.split(",")) {
            Optional<PathPattern> p = PathPattern.parse(part);
            if (p.isEmpty()) return null;
            out.add(p.get());
        }
        return out;
    }

    private static Set<String> methods(String s) {
        Set<String> out = new LinkedHashSet<>();
        for (String part : s.split(",")) {
            String m = part.trim();
            if (!METHOD.matcher(m).matches()) return null;
            out.add(m.toUpperCase(Locale.ROOT));
        }
        return out;
    }

    private static FailurePolicy failurePolicy(String s) {
        return enumValue(FailurePolicy.class, s);
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String s) {
        String name = s.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(name)) return e;
        }
        return null;
    }

    private <T> T value(String property, T fallback, Function<String, T> parse, String expected) {
        String v = props.get(property);
        if (v == null) return fallback;
        T parsed = parse.apply(v);
        if (parsed == null) {
            problem(property, v, expected);
            return fallback;
        }
        return parsed;
    }

    private <T> T ruleValue(Map<String, String> p, String base, String property, T fallback,
                            Function<String, T> parse, String expected) {
        String v = p.get(property);
        if (v == null) return fallback;
        T parsed = v.isEmpty() ? null : parse.apply(v);
        if (parsed == null) {
            problem(base + property, v, expected);
            return fallback;
        }
        return parsed;
    }

    /**
     * One problem: the property, its value as written (a value that holds a placeholder is shown with the
     * placeholder, never resolved; credentials in an address are masked), and the expected form.
     */
    private void problem(String property, String value, String expected) {
        if (unresolved.contains(property)) return;
        String asWritten = written.get(property);
        String shown = Placeholders.present(asWritten) ? asWritten : value;
        problems.add(property + " = \"" + printable(redactUserInfo(shown)) + "\": expected " + expected);
    }

    /** Passwords in {@code redis://user:secret@host} (or {@code user:secret@host}) never reach a log. */
    public static String redactUserInfo(String address) {
        int at = address.lastIndexOf('@');
        if (at < 0) return address;
        int scheme = address.indexOf("://");
        String head = scheme >= 0 && scheme < at ? address.substring(0, scheme + 3) : "";
        return head + "***" + address.substring(at);
    }

    /** Values are echoed in messages; keep them to one printable line. */
    static String printable(String v) {
        String s = v.length() > 200 ? v.substring(0, 200) + "..." : v;
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(c < ' ' || c == 0x7f ? '?' : c);
        }
        return sb.toString();
    }
}
