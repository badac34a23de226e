package io.sluice.failure;

import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The failure suites' rate rules, one per algorithm: {@code <base>-<algorithm>} (such as {@code check-token-bucket})
 * with the same rate and settings, all in one engine, so that every fault is felt by every algorithm's script in the
 * same run instead of five runs of the same fault.
 */
final class RateRules {
    /** A leaky bucket's waiting room in these rules: a fresh key admits this many plus one at once. */
    static final int LEAKY_QUEUE = 2;

    private RateRules() {
    }

    static String name(String base, Algorithm algorithm) {
        return base + "-" + algorithm.id();
    }

    /**
     * Adds {@code sluice.rules.<base>-<algorithm>.*} for every algorithm to {@code properties}: {@code rate}, the
     * algorithm, a leaky bucket's {@code queue} and the {@code extra} rule properties; returns the rule names. Each is
     * {@code prefetch=off} unless {@code extra} says otherwise: these suites measure what a fault does to each
     * decision's own call (a large rule would prefetch by default); prefetch under a frozen or restarted Redis is
     * {@code EngineMatchesModelIT}'s, {@code StrandedPrefetchTest}'s and {@code GivenUpPrefetchTest}'s.
     */
    static List<String> addAll(Map<String, String> properties, String base, String rate, Map<String, String> extra) {
        return addAll(properties, base, rate, LEAKY_QUEUE, extra);
    }

    /** As {@link #addAll(Map, String, String, Map)}, the leaky bucket with a {@code queue} of {@code leakyQueue}. */
    static List<String> addAll(Map<String, String> properties, String base, String rate, int leakyQueue,
                               Map<String, String> extra) {
        return add(properties, base, rate, leakyQueue, extra, List.of(Algorithm.values()));
    }

    static List<String> add(Map<String, String> properties, String base, String rate, int leakyQueue,
                            Map<String, String> extra, List<Algorithm> algorithms) {
        List<String> names = new ArrayList<>();
        for (Algorithm a : algorithms) {
            String name = name(base, a);
            String p = "sluice.rules." + name + ".";
            properties.put(p + "rate", rate);
            properties.put(p + "algorithm", a.id());
            if (a == Algorithm.LEAKY_BUCKET) properties.put(p + "queue", Integer.toString(leakyQueue));
            properties.put(p + "prefetch", "off");
            extra.forEach((k, v) -> properties.put(p + k, v));
            names.add(name);
        }
        return names;
    }

    /**
     * What a fresh key of the rule admits at once: the limit for the windows and the log, the bucket for a token
     * bucket, the request on pace plus the queue for a leaky bucket.
     */
    static long capacity(Rule rule) {
        long permits = rule.rate().orElseThrow().permits();
        var policy = rule.ratePolicy();
        return switch (policy.algorithm()) {
            case TOKEN_BUCKET -> policy.burstFor(permits);
            case LEAKY_BUCKET -> policy.queue() + 1;
            default -> policy.effectiveLimit(permits);
        };
    }
}
