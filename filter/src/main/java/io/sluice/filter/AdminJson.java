package io.sluice.filter;

import io.sluice.Usage;
import io.sluice.rule.Durations;
import io.sluice.rule.PlanLimits;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;

import java.util.Locale;
import java.util.Map;

/**
 * The JSON of {@link SluiceAdminServlet}'s answers, written by hand (no JSON library is needed on the class path):
 * the rules in effect, and one-field objects. Every string is escaped (quotes, backslashes, control characters and
 * the line and paragraph separators), so no value can break out of its string. Stateless.
 */
final class AdminJson {
    private AdminJson() {
    }

    /** The rules in effect: each rule's limits, key, mode and plans; never a key value. */
    static String rules(RuleSet rules) {
        StringBuilder b = new StringBuilder("{\"rules\":[");
        boolean first = true;
        for (Rule r : rules.all()) {
            if (!first) b.append(',');
            first = false;
            b.append("{\"name\":").append(string(r.name()));
            r.rate().ifPresent(rate -> {
                b.append(",\"rate\":").append(string(rate.toString()));
                b.append(",\"algorithm\":").append(string(r.ratePolicy().algorithm().id()));
                b.append(",\"throttling\":").append(string(r.ratePolicy().throttling().name().toLowerCase(Locale.ROOT)));
                if (r.ratePolicy().burst() > 0) b.append(",\"burst\":").append(r.ratePolicy().burst());
            });
            if (r.limitsConcurrency()) {
                b.append(",\"concurrency\":").append(r.concurrency());
                b.append(",\"lease\":").append(string(Durations.format(r.lease())));
                b.append(",\"wait\":").append(string(Durations.format(r.waitTime())));
            }
            b.append(",\"key\":").append(string(r.key().toString()));
            b.append(",\"mode\":").append(string(r.dryRun() ? "dry-run" : "enforce"));
            b.append(",\"paths\":[");
            for (int i = 0; i < r.paths().size(); i++) b.append(i > 0 ? "," : "").append(string(r.paths().get(i).toString()));
            b.append(']');
            if (r.plans().any()) {
                b.append(",\"plan\":").append(string(r.plans().source().orElseThrow().toString()));
                b.append(",\"plans\":{");
                boolean firstPlan = true;
                for (Map.Entry<String, PlanLimits> e : r.plans().byName().entrySet()) {
                    if (!firstPlan) b.append(',');
                    firstPlan = false;
                    b.append(string(e.getKey())).append(':').append(plan(e.getValue()));
                }
                b.append('}');
            }
            b.append('}');
        }
        return b.append("]}").toString();
    }

    private static String plan(PlanLimits p) {
        StringBuilder b = new StringBuilder("{");
        if (p.rateUnlimited()) b.append("\"rate\":\"unlimited\"");
        else p.rate().ifPresent(rate -> b.append("\"rate\":").append(string(rate.toString())));
        if (p.burst() > 0) b.append(b.length() > 1 ? "," : "").append("\"burst\":").append(p.burst());
        if (p.concurrencyUnlimited()) b.append(b.length() > 1 ? "," : "").append("\"concurrency\":\"unlimited\"");
        else if (p.concurrency() > 0) b.append(b.length() > 1 ? "," : "").append("\"concurrency\":").append(p.concurrency());
        return b.append('}').toString();
    }

    /** One key's usage (never the key): durations in milliseconds. */
    static String usage(Usage u) {
        StringBuilder b = new StringBuilder("{\"rule\":").append(string(u.rule()));
        u.rate().ifPresent(r -> b.append(",\"rate\":{\"limit\":").append(r.limit()).append(",\"remaining\":").append(r.remaining())
                .append(",\"resetMillis\":").append(r.reset().toMillis()).append('}'));
        u.concurrency().ifPresent(c -> b.append(",\"concurrency\":{\"limit\":").append(c.limit()).append(",\"inFlight\":")
                .append(c.inFlight()).append('}'));
        return b.append(",\"blockedMillis\":").append(u.blocked().toMillis()).append('}').toString();
    }

    /** {@code {"error": message}}. */
    static String error(String message) {
        return "{\"error\":" + string(message) + "}";
    }

    /** A JSON string of {@code s}, quoted and escaped. */
    static String string(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    // Controls, and the separators some JavaScript parsers end a line at; '<' so HTML never sees a tag.
                    if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029' || c == '<') b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }
}
