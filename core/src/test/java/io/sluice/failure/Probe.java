package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;

import java.util.List;
import java.util.UUID;

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
     * On a fresh key, a rate rule of N permits admits exactly N and rejects the next, every decision made by Redis.
     * False as soon as one decision differs, so callers poll it with a deadline.
     */
    static boolean exact(Sluice sluice, String rule) {
        Rule r = sluice.rules().get(rule).orElseThrow();
        long limit = r.rate().orElseThrow().permits();
        String key = "probe-" + UUID.randomUUID();
        for (int i = 0; i <= limit; i++) {
            Decision d = admit(sluice, rule, key).decisions().get(0);
            if (d.outcome() != Decision.Outcome.DECIDED || d.allowed() != (i < limit)) return false;
        }
        return true;
    }
}
