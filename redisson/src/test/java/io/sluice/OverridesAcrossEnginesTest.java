package io.sluice;

import io.sluice.key.KeyResolver;
import io.sluice.redisson.CallerClockBackends;
import io.sluice.rule.Rule;
import io.sluice.spi.Overriding;
import io.sluice.spi.RequestRefusedException;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Overrides on a real Redis across two engines sharing it, on one injected clock (the engines' clock and ticker and the
 * scripts' time): set on one, applied there at once and on the other at its next poll (driven by the test); the key
 * keeps its usage; an override wins over a plan (an exempting plan included); it ends by its TTL, and when cleared; a
 * concurrency override; bad arguments; and Redis never holds the raw key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OverridesAcrossEnginesTest {
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();
    private final MutableClock clock = MutableClock.startingNow();
    private final List<Sluice> opened = new ArrayList<>();

    @AfterAll
    void close() {
        opened.forEach(Sluice::close);
    }

    /** Two engines on one prefix: rule {@code api} (rate, plans) and {@code jobs} (concurrency), keyed by user. */
    private List<Sluice> twoEngines(String algorithm) {
        String prefix = "ov-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", prefix);
        p.put("sluice.backend-timeout", "1d");
        p.put("sluice.rules.api.rate", "10/1h");
        p.put("sluice.rules.api.algorithm", algorithm);
        p.put("sluice.rules.api.key", "user");
        p.put("sluice.rules.api.plan", "header:X-Plan");
        p.put("sluice.rules.api.plans.pro.rate", "20/1h");
        p.put("sluice.rules.api.plans.vip.rate", "unlimited");
        p.put("sluice.rules.jobs.concurrency", "1");
        p.put("sluice.rules.jobs.key", "user");
        List<Sluice> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Sluice s = Sluice.builder().properties(p).backend(CallerClockBackends.on(redis.client(), clock, Duration.ofSeconds(10)))
                    .clock(clock).ticker(clock).build();
            opened.add(s);
            two.add(s);
        }
        return two;
    }

    private static KeySource keys(String user, String plan) {
        return new KeySource() {
            @Override
            public String keyFor(Rule rule) {
                return user;
            }

            @Override
            public long costFor(Rule rule) {
                return 1;
            }

            @Override
            public String planFor(Rule rule) {
                return plan;
            }
        };
    }

    private static Admission admit(Sluice s, String rule, String user, String plan) {
        return s.admit(List.of(s.rules().get(rule).orElseThrow()), keys(user, plan)).toCompletableFuture().join();
    }

    private static Decision rate(Sluice s, String user, String plan) {
        Admission a = admit(s, "api", user, plan);
        a.close();
        return a.decisions().isEmpty() ? null : a.decisions().get(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "fixed-window", "sliding-window"})
    void aKeyThatUsedEightOfTenHas7492LeftOnTheOtherEngineAfterItsPoll(String algorithm) {
        List<Sluice> e = twoEngines(algorithm);
        for (int i = 0; i < 8; i++) assertThat(rate(e.get(0), "alice", null).allowed()).isTrue();
        e.get(0).override("api", "alice", "7500/1h", Duration.ofDays(7)).toCompletableFuture().join();
        e.get(1).pollOverrides().toCompletableFuture().join();
        // What an operator looks up is what the key's next request sees: the override's limit, its usage kept.
        Usage looked = e.get(1).usage("api", "alice").toCompletableFuture().join();
        assertThat(looked.rate().orElseThrow().limit()).isEqualTo(7500);
        assertThat(looked.rate().orElseThrow().remaining()).isEqualTo(7492);
        assertThat(e.get(1).usage("api", "bob").toCompletableFuture().join().rate().orElseThrow().limit()).isEqualTo(10);
        Decision d = rate(e.get(1), "alice", null);
        assertThat(d.allowed()).isTrue();
        assertThat(d.limit()).isEqualTo(7500);
        assertThat(d.remaining()).isEqualTo(7491); // 7 492 left before this request
        // Another key keeps the rule's limit.
        assertThat(rate(e.get(1), "bob", null).limit()).isEqualTo(10);
    }

    @Test
    void theSettingEngineAppliesItAtOnceAndAnOverrideCanLowerALimit() {
        List<Sluice> e = twoEngines("sliding-log");
        e.get(0).override("api", "alice", "3/1h", Duration.ofHours(1)).toCompletableFuture().join();
        int admitted = 0;
        for (int i = 0; i < 10; i++) if (rate(e.get(0), "alice", null).allowed()) admitted++;
        assertThat(admitted).isEqualTo(3);
        Decision rejected = rate(e.get(0), "alice", null);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.limit()).isEqualTo(3);
    }

    @Test
    void anOverrideWinsOverThePlanAndOverAnExemptingPlan() {
        List<Sluice> e = twoEngines("sliding-log");
        e.get(0).override("api", "carol", "5/1h", Duration.ofHours(1)).toCompletableFuture().join();
        e.get(0).override("api", "dave", "2/1h", Duration.ofHours(1)).toCompletableFuture().join();
        e.get(1).pollOverrides().toCompletableFuture().join();
        assertThat(rate(e.get(1), "carol", "pro").limit()).isEqualTo(5);
        // dave's plan exempts him; his override limits him all the same.
        assertThat(rate(e.get(1), "dave", "vip").allowed()).isTrue();
        assertThat(rate(e.get(1), "dave", "vip").allowed()).isTrue();
        Decision third = rate(e.get(1), "dave", "vip");
        assertThat(third.allowed()).isFalse();
        assertThat(third.limit()).isEqualTo(2);
        // Without an override, the exempting plan still exempts: no decision at all.
        assertThat(rate(e.get(1), "erin", "vip")).isNull();
    }

    @Test
    void anOverrideEndsByItsTtlOnTheClockOfEachEngine() {
        List<Sluice> e = twoEngines("sliding-log");
        e.get(0).override("api", "frank", "12/1h", Duration.ofMinutes(10)).toCompletableFuture().join();
        e.get(1).pollOverrides().toCompletableFuture().join();
        int admitted = 0;
        for (int i = 0; i < 11; i++) if (rate(e.get(1), "frank", null).allowed()) admitted++;
        assertThat(admitted).isEqualTo(11);
        clock.advance(Duration.ofMinutes(10));
        // Ended: the rule's 10 again, with its 11 used; no poll needed for that.
        Decision d = rate(e.get(1), "frank", null);
        assertThat(d.allowed()).isFalse();
        assertThat(d.limit()).isEqualTo(10);
        e.get(1).pollOverrides().toCompletableFuture().join();
        assertThat(rate(e.get(0), "frank", null).limit()).isEqualTo(10);
    }

    @Test
    void clearedOnOneEngineTheOtherLimitsByTheRuleAfterItsPoll() {
        List<Sluice> e = twoEngines("sliding-log");
        e.get(0).override("api", "grace", "unlimited", Duration.ofHours(1)).toCompletableFuture().join();
        e.get(1).pollOverrides().toCompletableFuture().join();
        for (int i = 0; i < 30; i++) assertThat(rate(e.get(1), "grace", null)).isNull(); // exempt, nothing counted
        assertThat(e.get(0).clearOverride("api", "grace").toCompletableFuture().join()).isTrue();
        assertThat(e.get(0).clearOverride("api", "grace").toCompletableFuture().join()).isFalse();
        e.get(1).pollOverrides().toCompletableFuture().join();
        int admitted = 0;
        for (int i = 0; i < 15; i++) if (rate(e.get(1), "grace", null).allowed()) admitted++;
        assertThat(admitted).isEqualTo(10);
    }

    @Test
    void aConcurrencyOverrideLetsMoreInFlight() {
        List<Sluice> e = twoEngines("sliding-log");
        e.get(0).override("jobs", "heidi", "3", Duration.ofHours(1)).toCompletableFuture().join();
        e.get(1).pollOverrides().toCompletableFuture().join();
        List<Admission> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) held.add(admit(e.get(i % 2), "jobs", "heidi", null));
        assertThat(held.stream().filter(Admission::allowed).count()).isEqualTo(3);
        assertThat(held.get(3).rejection().orElseThrow().limit()).isEqualTo(3);
        held.forEach(Admission::close);
    }

    @Test
    void redisHoldsTheKeysHashNeverTheKey() {
        List<Sluice> e = twoEngines("sliding-log");
        String prefix = e.get(0).rules().settings().keyPrefix();
        String hostile = "{ivan}\r\n" + "x".repeat(100_000);
        e.get(0).override("api", hostile, "50/1h", Duration.ofHours(1)).toCompletableFuture().join();
        Map<String, String> stored = redis.client().<String, String>getMap("{" + prefix + ":overrides}", StringCodec.INSTANCE).readAllMap();
        assertThat(stored).containsOnlyKeys("api:" + KeyResolver.hash(hostile));
        assertThat(stored.values()).allSatisfy(v -> assertThat(v).endsWith(" 50/1h"));
        assertThat(redis.client().getKeys().getKeysStream().filter(k -> k.contains("ivan")).count()).isZero();
        assertThat(redis.client().getKeys().remainTimeToLive("{" + prefix + ":overrides}")).isPositive();
        assertThat(redis.client().getKeys().remainTimeToLive("{" + prefix + ":overrides}:version")).isPositive();
        assertThat(rate(e.get(0), hostile, null).limit()).isEqualTo(50);
    }

    @Test
    void badArgumentsAreRefusedWithTheirReason() {
        Sluice s = twoEngines("sliding-log").get(0);
        Duration hour = Duration.ofHours(1);
        assertThatThrownBy(() -> s.override("nope", "a", "1/1h", hour)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("override of rule \"nope\": no such rule; expected one of [api, jobs]");
        assertThatThrownBy(() -> s.override("a\r\nb", "a", "1/1h", hour))
                .hasMessage("override of rule \"(not a rule name)\": no such rule; expected one of [api, jobs]");
        assertThatThrownBy(() -> s.override("jobs", "a", "100/1h", hour)).hasMessageContaining("limits concurrency only");
        assertThatThrownBy(() -> s.override("api", "a", "7500/1m", hour)).hasMessageContaining("over the rule's period 1h");
        assertThatThrownBy(() -> s.override("api", null, "1/1h", hour)).hasMessageContaining("expected a key value");
        assertThatThrownBy(() -> s.override("api", "a", "1/1h", Duration.ofMillis(999)))
                .hasMessage("override ttl = \"999ms\": expected a duration from 1s to 366d");
        assertThatThrownBy(() -> s.override("api", "a", "1/1h", Duration.ofDays(367))).hasMessageContaining("from 1s to 366d");
        assertThatThrownBy(() -> s.clearOverride("nope", "a")).hasMessageContaining("no such rule");
    }

    @Test
    void theMostOverridesAreKeptAndOneMoreIsRefused() {
        Sluice s = twoEngines("sliding-log").get(0);
        String prefix = s.rules().settings().keyPrefix();
        // All but one in effect already (written as the put script writes them), and one ended, which a put forgets.
        long until = clock.millis() + Duration.ofHours(1).toMillis();
        Map<String, String> many = new HashMap<>();
        for (int i = 0; i < Overriding.MAX_OVERRIDES - 1; i++) many.put("api:" + KeyResolver.hash("k" + i), until + " 11/1h");
        many.put("api:" + KeyResolver.hash("ended"), clock.millis() + " 11/1h");
        redis.client().<String, String>getMap("{" + prefix + ":overrides}", StringCodec.INSTANCE).putAll(many);
        s.override("api", "last", "11/1h", Duration.ofHours(1)).toCompletableFuture().join();
        assertThatThrownBy(() -> s.override("api", "one-more", "11/1h", Duration.ofHours(1)).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(RequestRefusedException.class);
        // Replacing one in effect is no more.
        s.override("api", "k0", "12/1h", Duration.ofHours(1)).toCompletableFuture().join();
        assertThat(rate(s, "k0", null).limit()).isEqualTo(12);
        assertThat(rate(s, "k1", null).limit()).isEqualTo(11);
        assertThat(redis.client().getMap("{" + prefix + ":overrides}", StringCodec.INSTANCE).size()).isEqualTo(Overriding.MAX_OVERRIDES);
    }
}
