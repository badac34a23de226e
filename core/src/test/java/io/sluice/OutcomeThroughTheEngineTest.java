package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the engine does after a request: {@code count} gives back what an uncounted ending took, and a settlement
 * charges the actual cost (past the limit, or given back). In-memory backend, time from a hand-moved clock; the same
 * on Redis is {@code OutcomeOnRedisTest}.
 */
class OutcomeThroughTheEngineTest {
    private final MutableClock clock = new MutableClock(3_600_000L * 1000);

    private Sluice sluice(String... props) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        return Sluice.builder().properties(p).inMemory().clock(clock).ticker(clock).build();
    }

    private static Admission admit(Sluice s, String rule, String key) {
        List<Rule> list = List.of(s.rules().get(rule).orElseThrow());
        return s.admit(list, KeySource.fixed(key)).toCompletableFuture().join();
    }

    private static void end(Admission a, Ending ending) {
        a.end(ending).toCompletableFuture().join();
        a.close();
    }

    @Test
    void fiveFailedLoginsThenRejectedWhileSuccessesNeverUseTheLimit() {
        try (Sluice s = sluice("sluice.rules.login.rate", "5/15m", "sluice.rules.login.count", "failure")) {
            for (int i = 0; i < 20; i++) end(admit(s, "login", "alice"), Ending.status(200));
            for (int i = 1; i <= 5; i++) {
                Admission a = admit(s, "login", "alice");
                assertThat(a.allowed()).as("failure " + i).isTrue();
                assertThat(a.headline().orElseThrow().remaining()).isEqualTo(5 - i);
                // Advertised as the ending leaves it: a 401 keeps its permit, a 200 would give it back.
                assertThat(a.headline(Ending.status(401)).orElseThrow().remaining()).isEqualTo(5 - i);
                assertThat(a.headline(Ending.status(200)).orElseThrow().remaining()).isEqualTo(6 - i);
                end(a, Ending.status(401));
                end(admit(s, "login", "alice"), Ending.status(302));
            }
            Admission sixth = admit(s, "login", "alice");
            assertThat(sixth.allowed()).isFalse();
            assertThat(sixth.rejection().orElseThrow().retryAfterSeconds()).isEqualTo(900);
            // Another user is a counter of its own.
            assertThat(admit(s, "login", "bob").allowed()).isTrue();
        }
    }

    @Test
    void successCountsOnlySuccessesAndStatusesOnlyTheirs() {
        try (Sluice s = sluice("sluice.rules.ok.rate", "2/1h", "sluice.rules.ok.algorithm", "fixed-window",
                "sluice.rules.ok.count", "success", "sluice.rules.st.rate", "2/1h", "sluice.rules.st.algorithm", "sliding-window",
                "sluice.rules.st.count", "401,5xx")) {
            for (int i = 0; i < 5; i++) end(admit(s, "ok", "k"), Ending.failure());
            end(admit(s, "ok", "k"), Ending.success());
            end(admit(s, "ok", "k"), Ending.status(201));
            assertThat(admit(s, "ok", "k").allowed()).isFalse();
            for (int i = 0; i < 5; i++) end(admit(s, "st", "k"), Ending.status(404));
            end(admit(s, "st", "k"), Ending.status(503));
            end(admit(s, "st", "k"), Ending.success());
            assertThat(admit(s, "st", "k").allowed()).as("a call has no status: it counts").isFalse();
        }
    }

    @Test
    void endingTwiceGivesBackOnce() {
        try (Sluice s = sluice("sluice.rules.login.rate", "2/15m", "sluice.rules.login.count", "failure",
                "sluice.rules.login.algorithm", "token-bucket")) {
            Admission a = admit(s, "login", "k");
            end(admit(s, "login", "k"), Ending.status(401));
            a.end(Ending.status(200)).toCompletableFuture().join();
            a.end(Ending.status(200)).toCompletableFuture().join();
            a.close();
            assertThat(admit(s, "login", "k").headline().orElseThrow().remaining()).isZero();
        }
    }

    /**
     * Issue 24's example: estimated at 1 000 tokens, each reporting 3 000, against 20000/1h: the 7th is admitted (18 000
     * used, its estimate fits) and settles the key to 21 000; the 8th is rejected until 2 000 tokens are repaid: 360 s.
     */
    @Test
    void settlementsPastTheLimitPutTheKeyInDebt() {
        try (Sluice s = sluice("sluice.rules.llm.rate", "20000/1h", "sluice.rules.llm.algorithm", "token-bucket",
                "sluice.rules.llm.cost", "1000")) {
            for (int i = 1; i <= 7; i++) {
                Admission a = admit(s, "llm", "acme");
                assertThat(a.allowed()).as("request " + i).isTrue();
                assertThat(a.headline().orElseThrow().remaining()).isEqualTo(20000 - 3000L * (i - 1) - 1000);
                a.settle("llm", 3000).toCompletableFuture().join();
                a.close();
            }
            Admission eighth = admit(s, "llm", "acme");
            assertThat(eighth.allowed()).isFalse();
            assertThat(eighth.rejection().orElseThrow().retryAfter()).isEqualTo(Duration.ofSeconds(360));
            assertThat(eighth.rejection().orElseThrow().remaining()).isZero();
            clock.advance(Duration.ofSeconds(359));
            assertThat(admit(s, "llm", "acme").allowed()).isFalse();
            clock.advance(Duration.ofSeconds(1));
            assertThat(admit(s, "llm", "acme").allowed()).isTrue();
        }
    }

    @Test
    void aSettlementBelowTheEstimateGivesTheRestBackAndOnlyTheFirstCounts() {
        try (Sluice s = sluice("sluice.rules.rows.rate", "100/1h", "sluice.rules.rows.algorithm", "fixed-window",
                "sluice.rules.rows.cost", "40")) {
            Admission a = admit(s, "rows", "k");
            a.settle("rows", 10).toCompletableFuture().join();
            a.settle("rows", 90).toCompletableFuture().join();
            a.close();
            Admission b = admit(s, "rows", "k");
            assertThat(b.headline().orElseThrow().remaining()).as("10 + 40 used").isEqualTo(50);
            b.settle("rows", 0).toCompletableFuture().join();
            assertThat(admit(s, "rows", "k").headline().orElseThrow().remaining()).as("10 + 40 used").isEqualTo(50);
        }
    }

    @Test
    void aHugeSettlementIsChargedAtMostAHundredPeriods() {
        try (Sluice s = sluice("sluice.rules.llm.rate", "10/1h", "sluice.rules.llm.algorithm", "token-bucket")) {
            Admission a = admit(s, "llm", "k");
            a.settle("llm", Long.MAX_VALUE).toCompletableFuture().join();
            Admission next = admit(s, "llm", "k");
            // 1 000 tokens taken (100 periods of 10), 10 in a full bucket: the next request waits for 991 tokens, 6 min each.
            assertThat(next.rejection().orElseThrow().retryAfter()).isEqualTo(Duration.ofMinutes(991 * 6));
        }
    }

    @Test
    void onlyASettleableRuleCanBeSettled() {
        try (Sluice s = sluice("sluice.rules.log.rate", "10/1h", "sluice.rules.other.rate", "10/1h",
                "sluice.rules.other.algorithm", "token-bucket")) {
            Admission a = admit(s, "log", "k");
            assertThatThrownBy(() -> a.settle("log", 3)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("rule log cannot be settled: settle only with algorithm=token-bucket");
            assertThatThrownBy(() -> a.settle("log", -1)).isInstanceOf(IllegalArgumentException.class);
            // A rule that did not apply to the request has nothing to settle.
            assertThat(a.settle("other", 3).toCompletableFuture().join()).isNull();
        }
    }
}
