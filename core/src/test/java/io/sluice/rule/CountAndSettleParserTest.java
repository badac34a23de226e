package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.Ending;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The rule properties {@code count} and {@code settle}: every form, default and error message. */
class CountAndSettleParserTest {

    private static Map<String, String> props(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static Rule rule(String... kv) {
        return RuleParser.parse(props(kv)).all().get(0);
    }

    private static List<String> problems(String... kv) {
        ConfigException e = catchThrowableOfType(() -> RuleParser.parse(props(kv)), ConfigException.class);
        assertThat(e).as("a ConfigException").isNotNull();
        return e.problems();
    }

    @Test
    void byDefaultEveryRequestCountsAndNothingSettles() {
        Rule r = rule("sluice.rules.a.rate", "5/15m");
        assertThat(r.count()).isEqualTo(CountPolicy.ALL);
        assertThat(r.settle()).isEqualTo(Settle.NONE);
        assertThat(r.count().counts(Ending.status(200))).isTrue();
        assertThat(r.count().counts(Ending.failure())).isTrue();
    }

    @Test
    void failureCountsFourAndFiveHundredsAndThrownCalls() {
        CountPolicy c = rule("sluice.rules.login.rate", "5/15m", "sluice.rules.login.count", "failure").count();
        assertThat(c.counts(Ending.status(401))).isTrue();
        assertThat(c.counts(Ending.status(503))).isTrue();
        assertThat(c.counts(Ending.status(200))).isFalse();
        assertThat(c.counts(Ending.status(302))).isFalse();
        assertThat(c.counts(Ending.status(399))).isFalse();
        assertThat(c.counts(Ending.failure())).isTrue();
        assertThat(c.counts(Ending.success())).isFalse();
    }

    @Test
    void successCountsTheRest() {
        CountPolicy c = rule("sluice.rules.a.rate", "5/1h", "sluice.rules.a.count", "SUCCESS").count();
        assertThat(c.counts(Ending.status(204))).isTrue();
        assertThat(c.counts(Ending.status(404))).isFalse();
        assertThat(c.counts(Ending.success())).isTrue();
        assertThat(c.counts(Ending.failure())).isFalse();
    }

    @Test
    void statusesAndClassesMixedCountOnlyTheirResponsesAndEveryCall() {
        CountPolicy c = rule("sluice.rules.a.rate", "5/1h", "sluice.rules.a.count", "401, 403,5xx").count();
        assertThat(c.kind()).isEqualTo(CountPolicy.Kind.STATUSES);
        assertThat(c.toString()).isEqualTo("5xx,401,403");
        assertThat(c.counts(Ending.status(401))).isTrue();
        assertThat(c.counts(Ending.status(403))).isTrue();
        assertThat(c.counts(Ending.status(500))).isTrue();
        assertThat(c.counts(Ending.status(599))).isTrue();
        assertThat(c.counts(Ending.status(404))).isFalse();
        assertThat(c.counts(Ending.status(200))).isFalse();
        // A status list applies to HTTP responses only: a call (no status) always counts.
        assertThat(c.counts(Ending.success())).isTrue();
        assertThat(c.counts(Ending.failure())).isTrue();
    }

    @Test
    void aBadCountNamesPropertyValueAndForm() {
        assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.count", "failures")).containsExactly(
                "sluice.rules.a.count = \"failures\": expected all, failure, success, or HTTP statuses and classes such as 401,403 or 4xx");
        assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.count", "4x")).hasSize(1);
        assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.count", "600")).hasSize(1);
        assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.count", "401,")).hasSize(1);
        assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.count", "")).hasSize(1);
    }

    @Test
    void countNeedsARefundableHardOrSoftRate() {
        assertThat(problems("sluice.rules.a.concurrency", "4", "sluice.rules.a.count", "failure")).containsExactly(
                "sluice.rules.a.count = \"failure\": expected count only on a rule with rate (what is given back is rate permits)");
        assertThat(problems("sluice.rules.a.rate", "5/1s", "sluice.rules.a.algorithm", "leaky-bucket",
                "sluice.rules.a.count", "failure")).containsExactly(
                "sluice.rules.a.count = \"failure\": expected count only with an algorithm that can give permits back (not leaky-bucket)");
        assertThat(problems("sluice.rules.a.rate", "5/1s", "sluice.rules.a.throttling", "elastic", "sluice.rules.a.capacity", "g",
                "sluice.rules.a.count", "4xx", "sluice.rules.g.rate", "100/1s", "sluice.rules.g.key", "global")).containsExactly(
                "sluice.rules.a.count = \"4xx\": expected count only with throttling=hard or soft (an elastic request may have "
                        + "borrowed from its capacity rule)");
        // count=all is the default, and fine anywhere.
        assertThat(rule("sluice.rules.a.concurrency", "4", "sluice.rules.a.count", "all").count().all()).isTrue();
        assertThat(rule("sluice.rules.a.rate", "5/1s", "sluice.rules.a.throttling", "soft", "sluice.rules.a.count", "failure")
                .count().kind()).isEqualTo(CountPolicy.Kind.FAILURE);
        assertThat(rule("sluice.rules.a.rate", "5/1s", "sluice.rules.a.prefetch", "2", "sluice.rules.a.count", "success")
                .count().kind()).isEqualTo(CountPolicy.Kind.SUCCESS);
    }

    @Test
    void settleFromAResponseHeaderHiddenOrKept() {
        Rule r = rule("sluice.rules.llm.rate", "20000/1h", "sluice.rules.llm.algorithm", "token-bucket",
                "sluice.rules.llm.cost", "1000", "sluice.rules.llm.settle", "header:X-Tokens-Used");
        assertThat(r.settle()).isEqualTo(new Settle(Optional.of("X-Tokens-Used"), false));
        assertThat(r.settle().fromHeader()).isTrue();
        Rule kept = rule("sluice.rules.llm.rate", "100/1m", "sluice.rules.llm.algorithm", "fixed-window",
                "sluice.rules.llm.settle", "header:X-Rows ; keep");
        assertThat(kept.settle()).isEqualTo(new Settle(Optional.of("X-Rows"), true));
        assertThat(rule("sluice.rules.llm.rate", "100/1m", "sluice.rules.llm.algorithm", "sliding-window",
                "sluice.rules.llm.settle", "HEADER:x-rows").settle().header()).contains("x-rows");
    }

    @Test
    void aBadSettleNamesPropertyValueAndForm() {
        String expected = "expected header:<Response-Header> such as header:X-Tokens-Used, optionally followed by ;keep";
        for (String bad : List.of("X-Tokens", "header:", "header:X Tokens", "header:X\u00e9", "header:X-Tokens;drop",
                "response:X-Tokens", "header:" + "x".repeat(65))) {
            assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.algorithm", "token-bucket",
                    "sluice.rules.a.settle", bad)).as(bad).hasSize(1).allMatch(p -> p.startsWith("sluice.rules.a.settle = ")
                    && p.endsWith(expected));
        }
    }

    @Test
    void settleNeedsARateThatCanGoIntoDebt() {
        String h = "header:X-Used";
        assertThat(problems("sluice.rules.a.concurrency", "2", "sluice.rules.a.settle", h)).containsExactly(
                "sluice.rules.a.settle = \"header:X-Used\": expected settle only on a rule with rate");
        assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.settle", h)).containsExactly(
                "sluice.rules.a.settle = \"header:X-Used\": expected settle only with algorithm=token-bucket, fixed-window or "
                        + "sliding-window (sliding-log cannot take permits past its limit)");
        assertThat(problems("sluice.rules.a.rate", "5/1s", "sluice.rules.a.algorithm", "leaky-bucket", "sluice.rules.a.settle", h))
                .hasSize(1).allMatch(p -> p.contains("(leaky-bucket cannot take permits past its limit)"));
        assertThat(problems("sluice.rules.a.rate", "5/1h", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.throttling", "soft", "sluice.rules.a.settle", h)).containsExactly(
                "sluice.rules.a.settle = \"header:X-Used\": expected settle only with throttling=hard");
        assertThat(problems("sluice.rules.a.rate", "50/1h", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.prefetch", "5", "sluice.rules.a.settle", h)).containsExactly(
                "sluice.rules.a.settle = \"header:X-Used\": expected settle only without a fixed prefetch");
        assertThat(problems("sluice.rules.a.rate", "50/1h", "sluice.rules.a.algorithm", "token-bucket",
                "sluice.rules.a.count", "failure", "sluice.rules.a.settle", h)).containsExactly(
                "sluice.rules.a.settle = \"header:X-Used\": expected settle only with count=all");
    }

    @Test
    void aReportedCostIsAWholeNumberElseTheEstimateStands() {
        assertThat(Settle.reported("3000")).isEqualTo(OptionalLong.of(3000));
        assertThat(Settle.reported(" 0 ")).isEqualTo(OptionalLong.of(0));
        assertThat(Settle.reported(null)).isEmpty();
        assertThat(Settle.reported("")).isEmpty();
        assertThat(Settle.reported("-5")).isEmpty();
        assertThat(Settle.reported("12.5")).isEmpty();
        assertThat(Settle.reported("1e9")).isEmpty();
        assertThat(Settle.reported("0x10")).isEmpty();
        assertThat(Settle.reported("3000, 4000")).isEmpty();
        assertThat(Settle.reported("9".repeat(40))).isEqualTo(OptionalLong.of(Long.MAX_VALUE));
        Rule r = rule("sluice.rules.llm.rate", "20000/1h", "sluice.rules.llm.algorithm", "token-bucket");
        assertThat(Settle.mostOwed(r)).as("100 periods of its permits").isEqualTo(2_000_000);
        Rule huge = rule("sluice.rules.llm.rate", "1000000000/1h", "sluice.rules.llm.algorithm", "token-bucket");
        assertThat(Settle.mostOwed(huge)).isEqualTo(1_000_000_000L);
    }

    @Test
    void aStatusIsAnHttpStatus() {
        assertThat(Ending.status(401).failed()).isTrue();
        assertThat(Ending.status(399).failed()).isFalse();
        assertThat(Ending.status(200).httpStatus()).hasValue(200);
        assertThat(Ending.failure().httpStatus()).isEmpty();
        assertThat(catchThrowableOfType(() -> Ending.status(42), IllegalArgumentException.class)).isNotNull();
    }
}
