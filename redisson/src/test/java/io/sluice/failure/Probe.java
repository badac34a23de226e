package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** One-rule decisions, and the check the failure suites use to say "limits hold again". */
final class Probe {
    private Probe() {
    }

    static Admission admit(Sluice sluice, String rule, String key) {
        return sluice.admit(List.of(sluice.rules().get(rule).orElseThrow()), KeySource.fixed(key)).toCompletableFuture().join();
    }

    /** One decision on a throw-away key, made by Redis (not by a failure policy). */
    static boolean decidedByRedis(Sluice sluice, String rule) {
        return admit(sluice, rule, "warm-up-" + UUID.randomUUID()).decisions().get(0).outcome() == Decision.Outcome.DECIDED;
    }

    /**
     * On a fresh key, a rate rule that holds N at once ({@link RateRules#capacity}) admits exactly N and rejects the
     * next, every decision made by Redis. False as soon as one decision differs, so callers poll it with a deadline.
     * A leaky bucket's N requests are sent together: one after the other, each waiting for its slot, they would
     * all be on pace.
     */
    static boolean exact(Sluice sluice, String rule) {
        Rule r = sluice.rules().get(rule).orElseThrow();
        long capacity = RateRules.capacity(r);
        String key = "probe-" + UUID.randomUUID();
        if (r.ratePolicy().algorithm() == Algorithm.LEAKY_BUCKET) {
            List<CompletableFuture<Admission>> sent = new ArrayList<>();
            for (int i = 0; i <= capacity; i++) {
                sent.add(sluice.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture());
            }
            long allowed = 0;
            for (CompletableFuture<Admission> a : sent) {
                Decision d = a.join().decisions().get(0);
                if (d.outcome() != Decision.Outcome.DECIDED) return false;
                if (d.allowed()) allowed++;
            }
            return allowed == capacity;
        }
        for (int i = 0; i <= capacity; i++) {
            Decision d = admit(sluice, rule, key).decisions().get(0);
            if (d.outcome() != Decision.Outcome.DECIDED || d.allowed() != (i < capacity)) return false;
        }
        return true;
    }

    /** {@link #exact} for every named rule. */
    static boolean exact(Sluice sluice, List<String> rules) {
        for (String rule : rules) if (!exact(sluice, rule)) return false;
        return true;
    }
}
