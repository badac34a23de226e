package io.sluice.rule;

import io.sluice.key.PlanSource;
import io.sluice.spi.Algorithm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The per-plan part of one rule: {@code plan} and {@code plans.<plan>.rate|burst|concurrency}, each checked
 * against the rule (a plan's rate keeps the rule's period, a burst needs a token bucket, a concurrency needs a
 * rule with one, a plan still fits the rule's cost). Problems go to the {@link RuleParser}'s list, named as it
 * names them.
 */
final class PlanParser {
    /** Reports one problem as {@code property = "value": expected ...}. */
    interface Problem {
        void report(String property, String value, String expected);
    }

    static final String UNLIMITED = "unlimited";
    /** What a plan may override: {@code plans.<plan>.rate|burst|concurrency}. */
    static final List<String> PLAN_PROPERTIES = List.of("rate", "burst", "concurrency");
    private static final Pattern PLAN_PROPERTY = Pattern.compile("plans\\.([^.]*)\\.(.+)");
    private static final Pattern PLAN_NAME = Pattern.compile("[A-Za-z0-9_-]+");
    private static final String SUB_PROPERTIES = "plans.<plan>.rate, plans.<plan>.burst or plans.<plan>.concurrency";

    private final Problem problem;
    private final Consumer<String> missing;

    PlanParser(Problem problem, Consumer<String> missing) {
        this.problem = problem;
        this.missing = missing;
    }

    /** Whether a rule property belongs to plans. */
    static boolean isPlanProperty(String property) {
        return property.equals("plan") || property.startsWith("plans.");
    }

    Plans parse(Map<String, String> p, String base, Optional<Rate> rate, int concurrency, RatePolicy policy) {
        Map<String, Map<String, String>> byPlan = new TreeMap<>();
        p.forEach((property, value) -> {
            if (!property.startsWith("plans.")) return;
            Matcher m = PLAN_PROPERTY.matcher(property);
            if (!m.matches()) {
                problem.report(base + property, value, SUB_PROPERTIES);
            } else if (!PLAN_NAME.matcher(m.group(1)).matches()) {
                problem.report(base + property, value, "a plan name of letters, digits, '_' and '-' such as "
                        + base + "plans.pro.rate");
            } else if (!PLAN_PROPERTIES.contains(m.group(2))) {
                problem.report(base + property, value, SUB_PROPERTIES);
            } else {
                byPlan.computeIfAbsent(m.group(1), n -> new TreeMap<>()).put(m.group(2), value);
            }
        });
        String sourceText = p.get("plan");
        Optional<PlanSource> source = Optional.empty();
        if (sourceText != null) {
            source = PlanSource.parse(sourceText);
            if (source.isEmpty()) problem.report(base + "plan", sourceText, PlanSource.EXPECTED);
            else if (p.keySet().stream().noneMatch(k -> k.startsWith("plans."))) {
                problem.report(base + "plan", sourceText, "plans to choose from, such as " + base + "plans.pro.rate=100/1h");
            }
        } else if (p.keySet().stream().anyMatch(k -> k.startsWith("plans."))) {
            missing.accept(base + "plan = (missing): expected where a request's plan comes from, " + PlanSource.EXPECTED
                    + " (plans need it)");
        }
        Map<String, PlanLimits> plans = new LinkedHashMap<>();
        // A rule whose own rate or concurrency is bad has that problem reported; its plans are not judged against it.
        if (rate.isEmpty() && p.containsKey("rate") || concurrency == 0 && p.containsKey("concurrency")) return Plans.NONE;
        byPlan.forEach((name, props) -> plans.put(name, plan(base + "plans." + name + ".", name, props, rate, concurrency, policy)));
        return source.isEmpty() ? Plans.NONE : new Plans(source, plans);
    }

    PlanLimits plan(String base, String name, Map<String, String> props, Optional<Rate> ruleRate, int ruleConcurrency,
                            RatePolicy policy) {
        Optional<Rate> rate = Optional.empty();
        boolean rateUnlimited = false;
        String rateText = props.get("rate");
        if (rateText != null) {
            if (ruleRate.isEmpty()) {
                problem.report(base + "rate", rateText, "a plan rate only on a rule with rate");
            } else if (rateText.equalsIgnoreCase(UNLIMITED)) {
                rateUnlimited = true;
            } else {
                Rate period = ruleRate.get();
                rate = Rate.parse(rateText).filter(r -> r.period().equals(period.period()));
                if (rate.isEmpty()) {
                    problem.report(base + "rate", rateText, "unlimited or a rate over the rule's period "
                            + Durations.format(period.period()) + " such as 100/" + Durations.format(period.period())
                            + " (a plan changes how many, not the window, so a key keeps its usage when its plan changes; "
                            + Rate.RANGES + ")");
                }
            }
        }
        long burst = 0;
        String burstText = props.get("burst");
        if (burstText != null) {
            long permits = rate.or(() -> ruleRate).map(Rate::permits).orElse(Rate.MAX_PERMITS);
            long most = Math.min(Rate.MAX_PERMITS, permits * RatePolicy.MAX_PERIODS_AHEAD);
            Long b = RuleParser.whole(burstText, 1, most);
            if (ruleRate.isEmpty() || policy.algorithm() != Algorithm.TOKEN_BUCKET) {
                problem.report(base + "burst", burstText, "burst only with algorithm=token-bucket");
            } else if (rateUnlimited) {
                problem.report(base + "burst", burstText, "no burst on a plan whose rate is unlimited");
            } else if (b == null) {
                problem.report(base + "burst", burstText, RuleParser.burstExpected(most));
            } else {
                burst = b;
            }
        }
        int concurrency = 0;
        boolean concurrencyUnlimited = false;
        String concurrencyText = props.get("concurrency");
        if (concurrencyText != null) {
            if (ruleConcurrency == 0) {
                problem.report(base + "concurrency", concurrencyText, "a plan concurrency only on a rule with concurrency");
            } else if (concurrencyText.equalsIgnoreCase(UNLIMITED)) {
                concurrencyUnlimited = true;
            } else if (concurrencyText.matches("\\d{1,9}") && Integer.parseInt(concurrencyText) >= 1) {
                concurrency = Integer.parseInt(concurrencyText);
            } else {
                problem.report(base + "concurrency", concurrencyText,
                        "unlimited or a whole number of requests in flight, at least 1, such as 8");
            }
        }
        PlanLimits limits = new PlanLimits(name, rate, rateUnlimited, burst, concurrency, concurrencyUnlimited);
        fitsCost(base, props, limits, ruleRate, policy);
        return limits;
    }

    /** A plan must admit the rule's costliest request, as the rule itself must. */
    private void fitsCost(String base, Map<String, String> props, PlanLimits limits, Optional<Rate> ruleRate, RatePolicy policy) {
        if (limits.rateUnlimited() || ruleRate.isEmpty() || (limits.rate().isEmpty() && limits.burst() == 0)) return;
        long permits = limits.rate().orElse(ruleRate.get()).permits();
        long most = limits.ratePolicy(policy).capacityFor(permits);
        if (most == 0) return;
        long costliest = Math.max(policy.cost(), policy.costs().stream().mapToLong(PathCost::cost).max().orElse(0));
        if (costliest > most) {
            String property = limits.burst() > 0 ? "burst" : "rate";
            problem.report(base + property, props.get(property), "a limit that admits the rule's costliest request ("
                    + costliest + " permits); this plan admits at most " + most + " at once");
        }
    }
}
