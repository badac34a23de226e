package io.sluice;

import io.sluice.redisson.CallerClockBackend;
import io.sluice.rule.Rule;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.ForwardingBackend;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21 through the whole engine on a real Redis, time injected: an elastic token bucket borrows only what its
 * capacity rule pays for; a cost that can never fit is rejected before any script sees it, for every algorithm; and
 * a request that Redis refuses is that request's rejection, never a backend failure: the breaker stays closed, the
 * failure policy is not applied, and an unrelated rule keeps limiting.
 */
class CostsAndElasticOnRedisTest {
    private static final long HOUR = 3_600_000L;
    private static final long HUGE_COST = 2_000_000_000L;
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();
    private final MutableClock clock = new MutableClock(System.currentTimeMillis() / HOUR * HOUR + 1);

    private Sluice sluice(LimiterBackend backend, String... props) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", "t" + UUID.randomUUID().toString().substring(0, 8));
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        return Sluice.builder().properties(p).backend(backend).clock(clock).ticker(clock).build();
    }

    private static Admission admit(Sluice s, String rule, KeySource keys) {
        Rule r = s.rules().get(rule).orElseThrow();
        return s.admit(List.of(r), keys).toCompletableFuture().join();
    }

    /**
     * {@code 4/4s}, token bucket, elastic 100%, the global {@code 1/1h} capacity rule used up; 8 requests a second for
     * 12 s: as many as a hard bucket admits (4, then one a second: 15). Before: 27.
     */
    @Test
    void anElasticTokenBucketWhoseCapacityRuleIsUsedUpAdmitsAsAHardOne() {
        try (Sluice s = sluice(CallerClockBackend.of(redisson.client(), clock),
                "sluice.rules.api.rate", "4/4s", "sluice.rules.api.algorithm", "token-bucket",
                "sluice.rules.api.throttling", "elastic", "sluice.rules.api.capacity", "system",
                "sluice.rules.system.rate", "1/1h", "sluice.rules.system.key", "global")) {
            assertThat(admit(s, "system", KeySource.fixed("*")).allowed()).as("the capacity rule's one permit").isTrue();
            int admitted = 0;
            Decision firstRejection = null;
            for (int i = 0; i < 96; i++) {
                if (i > 0) clock.advance(Duration.ofMillis(125));
                Admission a = admit(s, "api", KeySource.fixed("alice"));
                if (a.allowed()) admitted++;
                else if (firstRejection == null) firstRejection = a.rejection().orElseThrow();
            }
            System.out.println("CostsAndElasticOnRedisTest elastic token bucket: " + admitted + " of 96 admitted; first rejection "
                    + firstRejection);
            assertThat(admitted).isEqualTo(15);
            assertThat(firstRejection.remaining()).isZero();
            assertThat(firstRejection.reset()).as("the next token a second after the first was taken").isEqualTo(Duration.ofMillis(500));
            assertThat(s.stats().failedOpen()).isZero();
        }
    }

    /**
     * Issue 21's bypass: {@code rate=1/1d}, cost 2 000 000 000 from code ({@code KeySource.withCost}, the path of
     * {@code @LimitCost} too). Every request is a never-fits rejection decided before any backend call; the breaker
     * stays closed and an unrelated {@code 1/1h} rule admits exactly 1 of 3. Before (leaky bucket): 20 of 20
     * admitted as backend failures, then 3 of 3 through the open breaker.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "leaky-bucket", "fixed-window", "sliding-window"})
    void aHugeCostIsRejectedBeforeRedisAndBreaksNothing(String algorithm) {
        try (Sluice s = sluice(CallerClockBackend.of(redisson.client(), clock),
                "sluice.rules.export.rate", "1/1d", "sluice.rules.export.algorithm", algorithm,
                "sluice.rules.posts.rate", "1/1h")) {
            int admitted = 0;
            for (int i = 0; i < 20; i++) {
                Admission a = admit(s, "export", KeySource.fixed("mallory").withCost(HUGE_COST));
                if (a.allowed()) admitted++;
                else assertThat(a.rejection().orElseThrow().neverFits()).isTrue();
            }
            assertThat(admitted).as("huge costs admitted").isZero();
            assertThat(s.stats().backendCalls()).as("no script ever saw the cost").isZero();
            int others = 0;
            for (int i = 0; i < 3; i++) if (admit(s, "posts", KeySource.fixed("alice")).allowed()) others++;
            System.out.println("CostsAndElasticOnRedisTest " + algorithm + ": " + admitted + " of 20 huge costs admitted, "
                    + others + " of 3 of an unrelated rule; " + s.stats());
            assertThat(others).isEqualTo(1);
            assertThat(s.stats().failedOpen()).isZero();
            assertThat(s.stats().circuitOpenSkips()).isZero();
            // A cost above one period of a leaky bucket's pace never fits either; the limit itself still does.
            assertThat(admit(s, "export", KeySource.fixed("bob").withCost(2)).rejection().orElseThrow().neverFits()).isTrue();
            assertThat(admit(s, "export", KeySource.fixed("bob")).allowed()).isTrue();
        }
    }

    /**
     * A script error that one request's arguments cause (here a period no rules file can name, so that Redis
     * refuses the TTL, as it refused {@code SET ... PX 1.728e+17} before costs were bounded) is that request's
     * rejection: decided by the rule, not by {@code on-backend-failure=allow}, not counted against Redis (the breaker
     * stays closed), and the unrelated rule admits exactly 1 of 3.
     */
    @ParameterizedTest
    @ValueSource(strings = {"leaky-bucket", "fixed-window", "token-bucket"})
    void aRequestRedisRefusesIsRejectedAndTheBreakerStaysClosed(String algorithm) {
        LimiterBackend refusing = new ForwardingBackend(CallerClockBackend.of(redisson.client(), clock)) {
            @Override
            public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
                return super.tryConsume(absurd(r));
            }

            @Override
            public CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
                return super.tryConsumeAll(requests.stream().map(CostsAndElasticOnRedisTest::absurd).toList());
            }
        };
        try (Sluice s = sluice(refusing, "sluice.on-backend-failure", "allow",
                "sluice.rules.export.rate", "7/1d", "sluice.rules.export.algorithm", algorithm,
                "sluice.rules.posts.rate", "1/1h")) {
            int admitted = 0;
            for (int i = 0; i < 20; i++) {
                Admission a = admit(s, "export", KeySource.fixed("mallory"));
                if (a.allowed()) admitted++;
                else assertThat(a.rejection().orElseThrow().neverFits()).isTrue();
            }
            int others = 0;
            for (int i = 0; i < 3; i++) if (admit(s, "posts", KeySource.fixed("alice")).allowed()) others++;
            System.out.println("CostsAndElasticOnRedisTest refused " + algorithm + ": " + admitted + " of 20 admitted, "
                    + others + " of 3 of an unrelated rule; " + s.stats());
            assertThat(admitted).isZero();
            assertThat(others).isEqualTo(1);
            assertThat(s.stats().failedOpen()).isZero();
            assertThat(s.stats().circuitOpenSkips()).isZero();
        }
    }

    /** The marked rule's requests (7 permits) with a period whose TTL Redis cannot take. */
    private static RateRequest absurd(RateRequest r) {
        if (r.limit() != 7) return r;
        return new RateRequest(r.key(), r.algorithm(), r.limit(), Duration.ofMillis(Long.MAX_VALUE / 4), r.cost(), r.burst(),
                r.queue(), r.effectiveLimit());
    }
}
