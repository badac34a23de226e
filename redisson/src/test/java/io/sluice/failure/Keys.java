package io.sluice.failure;

import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Durations;
import io.sluice.rule.Rate;
import io.sluice.rule.Rule;

/** The Redis keys Sluice writes for a rule and a raw key value, as docs/storage-and-failures.md documents them. */
final class Keys {
    private Keys() {
    }

    static String rate(Sluice sluice, String ruleName, String raw) {
        Rule rule = sluice.rules().get(ruleName).orElseThrow();
        Rate rate = rule.rate().orElseThrow();
        return sluice.rules().settings().keyPrefix() + ":" + rule.name() + ":sliding-log:" + Durations.format(rate.period())
                + ":" + KeyResolver.hash(raw);
    }

    /** The sliding log of a rate key: one entry per permit consumed within the window. */
    static String rateLog(Sluice sluice, String ruleName, String raw) {
        return "{" + rate(sluice, ruleName, raw) + "}:permits";
    }

    /** The counter of a rate key: permits still free. */
    static String rateValue(Sluice sluice, String ruleName, String raw) {
        return "{" + rate(sluice, ruleName, raw) + "}:value";
    }

    static String semaphore(Sluice sluice, String ruleName, String raw) {
        Rule rule = sluice.rules().get(ruleName).orElseThrow();
        return sluice.rules().settings().keyPrefix() + ":" + rule.name() + ":concurrency:" + KeyResolver.hash(raw);
    }
}
