package io.sluice.model;

import io.sluice.rule.PlanLimits;
import io.sluice.rule.Rule;
import io.sluice.rule.RatePolicy;
import io.sluice.rule.Throttling;
import io.sluice.spi.Algorithm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The most a rate rule may admit for one key in any stretch of time [t1, t2], per its algorithm's own notion of a
 * window, checked against what every engine together admitted. A sliding log: its limit in any period; a fixed or
 * sliding window: its limit in each aligned window; a token bucket: {@code burst + rate x (t2 - t1)}; a leaky
 * bucket: {@code queue + cost + rate x (t2 - t1)}. Soft and elastic rules may go to the effective limit; what an
 * elastic rule admits above its nominal bound must have been paid by its capacity rule, which holds its own bound.
 * A reload starts a new epoch: a stretch never spans one. With plans, the largest of the rule's limits bounds it.
 */
public final class WindowBounds {
    private static final double SLACK = 1e-9;

    private record Admitted(long at, long permits) {
    }

    private final Map<String, List<Admitted>> admitted = new HashMap<>();
    private int epoch;

    /** A reload: stretches start again. */
    public void newEpoch() {
        epoch++;
        admitted.clear();
    }

    /**
     * Records that requests of {@code key} (as the rule counts it) took {@code permits} of {@code rule} at
     * {@code at} and checks every stretch that ends there.
     *
     * @return what was exceeded, or null
     */
    public String admitted(Rule rule, String key, long permits, long at, Optional<Rule> capacity) {
        List<Admitted> list = admitted.computeIfAbsent(rule.name() + "|" + key, k -> new ArrayList<>());
        list.add(new Admitted(at, permits));
        Limits most = most(rule, true);
        // Every stretch that holds the new admission (a waiter's permits count from when it asked, before others').
        for (Admitted from : list) {
            if (from.at() > at) continue;
            for (Admitted to : list) {
                if (to.at() < at) continue;
                long sum = sum(list, from.at(), to.at());
                double bound = most.bound(from.at(), to.at(), most.maxCost());
                if (sum > bound + SLACK) {
                    return String.format("rule %s key %s admitted %d permits in [%d, %d] ms, at most %.3f allowed (%s)",
                            rule.name(), key, sum, from.at(), to.at(), bound, most);
                }
            }
        }
        if (rule.ratePolicy().throttling() == Throttling.ELASTIC) return borrowed(rule, at, capacity);
        return null;
    }

    /**
     * {@code permits} that a request of {@code key} admitted at {@code at} gave back when it ended (its ending not
     * counted, or settled below its estimate): they no longer count in any stretch that holds it. Nothing when the
     * admission is of an earlier epoch.
     */
    public void givenBack(Rule rule, String key, long permits, long at) {
        List<Admitted> list = admitted.get(rule.name() + "|" + key);
        if (list == null || list.stream().noneMatch(a -> a.at() == at && a.permits() > 0)) return;
        list.add(new Admitted(at, -permits));
    }

    /** Above the nominal bound, summed over the rule's keys, never more than the capacity rule's bound. */
    private String borrowed(Rule rule, long at, Optional<Rule> capacity) {
        Limits nominal = most(rule, false);
        Limits paying = capacity.map(c -> most(c, true)).orElse(null);
        List<List<Admitted>> keys = new ArrayList<>();
        admitted.forEach((k, v) -> {
            if (k.startsWith(rule.name() + "|")) keys.add(v);
        });
        for (List<Admitted> list : keys) {
            for (Admitted from : list) {
                if (from.at() > at) continue;
                for (Admitted to : list) {
                    if (to.at() < at) continue;
                    double over = 0;
                    for (List<Admitted> key : keys) {
                        over += Math.max(0, sum(key, from.at(), to.at()) - Math.floor(nominal.bound(from.at(), to.at(), 1) + SLACK));
                    }
                    double lent = paying == null ? 0 : paying.bound(from.at(), to.at(), 1);
                    if (over > lent + SLACK) {
                        return String.format("elastic rule %s admitted %.0f permits over its nominal bound in [%d, %d] ms, its capacity"
                                + " rule could lend at most %.3f (%s; capacity %s)", rule.name(), over, from.at(), to.at(), lent, nominal, paying);
                    }
                }
            }
        }
        return null;
    }

    private static long sum(List<Admitted> list, long from, long to) {
        long s = 0;
        for (Admitted a : list) if (a.at() >= from && a.at() <= to) s += a.permits();
        return s;
    }

    /** The largest limits of a rule over its plans; effective (with overage) or nominal. */
    private static Limits most(Rule rule, boolean effective) {
        Limits m = Limits.of(rule, effective);
        for (PlanLimits p : rule.plans().byName().values()) {
            if (p.rateUnlimited()) continue;
            m = m.max(Limits.of(p.applyTo(rule), effective));
        }
        return m;
    }

    /** One rule's limits as a bound over a stretch of time. */
    private record Limits(Algorithm algorithm, double permits, long period, double burst, long queue, long maxCost) {
        static Limits of(Rule r, boolean effective) {
            RatePolicy p = r.ratePolicy();
            long permits = r.rate().orElseThrow().permits();
            double eff = effective ? p.effectiveLimit(permits) : permits;
            double burst = p.algorithm() == Algorithm.TOKEN_BUCKET ? Math.floor((double) p.burstFor(permits) * eff / permits) : eff;
            long maxCost = p.cost();
            for (var c : p.costs()) maxCost = Math.max(maxCost, c.cost());
            return new Limits(p.algorithm(), eff, r.rate().get().period().toMillis(), burst, p.queue(), maxCost);
        }

        Limits max(Limits o) {
            return new Limits(algorithm, Math.max(permits, o.permits), period, Math.max(burst, o.burst), queue, Math.max(maxCost, o.maxCost));
        }

        /** The most admitted in [from, to] when a request there may take up to {@code lastCost}. */
        double bound(long from, long to, long lastCost) {
            return switch (algorithm) {
                case SLIDING_LOG -> ((to - from) / period + 1) * permits;
                case FIXED_WINDOW, SLIDING_WINDOW -> (Math.floorDiv(to, period) - Math.floorDiv(from, period) + 1) * permits;
                case TOKEN_BUCKET -> burst + permits * (to - from) / period;
                case LEAKY_BUCKET -> queue + lastCost + permits * (to - from) / period;
            };
        }

        @Override
        public String toString() {
            return algorithm.name().toLowerCase().replace('_', '-') + " " + permits + "/" + period + "ms"
                    + (algorithm == Algorithm.TOKEN_BUCKET ? " burst " + burst : "") + (algorithm == Algorithm.LEAKY_BUCKET ? " queue " + queue : "");
        }
    }
}
