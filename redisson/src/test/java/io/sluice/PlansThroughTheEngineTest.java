package io.sluice;

import io.sluice.key.FakeRequest;
import io.sluice.key.KeyResolver;
import io.sluice.key.RequestView;
import io.sluice.rule.Rule;
import io.sluice.testing.TestRedis;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Per-plan limits on a real Redis: each plan's limit exactly, {@code unlimited} exempt without a backend call, an
 * unknown or hostile plan value held to the rule's own limits and never in a Redis key, and a key that changes
 * plan keeping its usage (one counter whatever the plan) for the algorithms whose keys omit the limit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlansThroughTheEngineTest {
    private static final String FREE = "free";
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();
    private final List<Sluice> engines = new ArrayList<>();

    @AfterAll
    void close() {
        engines.forEach(Sluice::close);
    }

    /** An engine on the test Redis with a key prefix of its own; rule {@code api} is keyed and planned by header. */
    private Sluice engine(String prefix, String... props) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.address", TestRedis.address());
        p.put("sluice.key-prefix", prefix);
        p.put("sluice.await-backend", "60s");
        p.put("sluice.backend-timeout", "5s");
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        Sluice s = Sluice.builder().properties(p).build();
        engines.add(s);
        return s;
    }

    private static String prefix() {
        return "plans-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * Rule {@code api}, keyed and planned by header. Its period is a week: Redis time cannot be injected, and fixed
     * and sliding windows are aligned to multiples of the period, so a test must not cross a boundary while it counts.
     */
    private static Sluice rateEngine(PlansThroughTheEngineTest t, String prefix, String algorithm) {
        return t.engine(prefix,
                "sluice.rules.api.rate", "3/7d",
                "sluice.rules.api.algorithm", algorithm,
                "sluice.rules.api.key", "header:X-User",
                "sluice.rules.api.plan", "header:X-Plan",
                "sluice.rules.api.plans.pro.rate", "10/7d",
                "sluice.rules.api.plans.vip.rate", "unlimited");
    }

    private static Admission admit(Sluice s, String user, String plan) {
        Rule rule = s.rules().get("api").orElseThrow();
        return s.admit(List.of(rule), s.keysOf(request(user, plan))).toCompletableFuture().join();
    }

    /** Admits until the first rejection (at most {@code most} tries); how many were admitted. */
    private static int admittedUntilRejected(Sluice s, String user, String plan, int most) {
        for (int i = 0; i < most; i++) {
            Admission a = admit(s, user, plan);
            a.close();
            if (!a.allowed()) return i;
        }
        return most;
    }

    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void eachPlanGetsExactlyItsLimitAndHeadersAdvertiseIt(String algorithm) {
        Sluice s = rateEngine(this, prefix(), algorithm);
        String free = "f-" + UUID.randomUUID();
        String pro = "p-" + UUID.randomUUID();
        Decision first = admit(s, pro, "pro").headline().orElseThrow();
        assertThat(first.limit()).isEqualTo(10);
        assertThat(first.remaining()).isEqualTo(9);
        assertThat(admittedUntilRejected(s, pro, "pro", 20)).isEqualTo(9);
        assertThat(admittedUntilRejected(s, free, null, 20)).isEqualTo(3);
        Decision rejected = admit(s, free, null).rejection().orElseThrow();
        assertThat(rejected.limit()).isEqualTo(3);
        assertThat(rejected.ruleName()).isEqualTo("api");
    }

    @Test
    void anUnlimitedPlanIsAdmittedWithoutABackendCallOrHeaders() {
        String prefix = prefix();
        Sluice s = rateEngine(this, prefix, "token-bucket");
        String vip = "v-" + UUID.randomUUID();
        long callsBefore = s.stats().backendCalls();
        for (int i = 0; i < 50; i++) {
            Admission a = admit(s, vip, "vip");
            assertThat(a.allowed()).isTrue();
            assertThat(a.decisions()).isEmpty();
            assertThat(a.headline()).isEmpty();
        }
        assertThat(s.stats().backendCalls()).isEqualTo(callsBefore);
        assertThat(keysOf(prefix, vip)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void unknownAndHostilePlanValuesGetTheRulesOwnLimitsAndNeverReachRedis(String algorithm) {
        String prefix = prefix();
        Sluice s = rateEngine(this, prefix, algorithm);
        String huge = "pro" + "x".repeat(10_000);
        List<String> hostile = List.of("Pro", "enterprise", huge, "pro\r\nX-Plan: vip", "vip\u0000", "プロ-日本", "{pro}", " pro");
        List<String> users = new ArrayList<>();
        for (String plan : hostile) {
            String user = "h-" + UUID.randomUUID();
            users.add(user);
            assertThat(admittedUntilRejected(s, user, plan, 20)).as(plan.length() > 40 ? "a 10 KB value" : plan).isEqualTo(3);
        }
        for (String user : users) assertThat(keysOf(prefix, user)).as("the counter of " + user).isNotEmpty();
        // A key's hashed parts are base64 and may spell "pro" by chance: look only at what is left around them.
        List<String> keys = allKeys(prefix).stream().map(k -> withoutHashes(k, users)).toList();
        assertThat(keys).allSatisfy(k -> assertThat(k)
                .doesNotContain("pro").doesNotContain("Pro").doesNotContain("enterprise").doesNotContain("vip")
                .doesNotContain("\r").doesNotContain("\n").doesNotContain("日本").doesNotContain("プロ").doesNotContain("x".repeat(16)));
    }

    /**
     * 2 of free's 3 used, then pro (10 a week): the key has 8 left, not 10 (one counter, rescaled). Back to free with
     * all 10 used: rejected at once. The shield, which remembered the key rejected on free, does not hold it on pro.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void aKeyThatChangesPlanKeepsItsUsage(String algorithm) {
        String prefix = prefix();
        Sluice s = rateEngine(this, prefix, algorithm);
        String user = "u-" + UUID.randomUUID();
        assertThat(admit(s, user, FREE).headline().orElseThrow().remaining()).isEqualTo(2);
        assertThat(admit(s, user, FREE).headline().orElseThrow().remaining()).isEqualTo(1);
        Decision upgraded = admit(s, user, "pro").headline().orElseThrow();
        assertThat(upgraded.allowed()).isTrue();
        assertThat(upgraded.limit()).isEqualTo(10);
        assertThat(upgraded.remaining()).isEqualTo(7);
        assertThat(admittedUntilRejected(s, user, "pro", 20)).isEqualTo(7);
        Decision downgraded = admit(s, user, FREE).rejection().orElseThrow();
        assertThat(downgraded.limit()).isEqualTo(3);
        // One counter whatever the plan: a sliding log is RRateLimiter's three keys of one limiter.
        assertThat(keysOf(prefix, user)).as("one counter for the key whatever its plan")
                .hasSize(algorithm.equals("sliding-log") ? 3 : 1);
    }

    @Test
    void theShieldDoesNotHoldAKeyRejectedOnOnePlanWhenItMovesToALargerOne() {
        Sluice s = rateEngine(this, prefix(), "token-bucket");
        String user = "s-" + UUID.randomUUID();
        assertThat(admittedUntilRejected(s, user, null, 10)).isEqualTo(3);
        assertThat(admit(s, user, null).allowed()).as("shielded on free").isFalse();
        Decision pro = admit(s, user, "pro").headline().orElseThrow();
        assertThat(pro.allowed()).isTrue();
        assertThat(pro.remaining()).isEqualTo(6);
    }

    @Test
    void concurrencyPlansHoldExactlyTheirLimitAndUnlimitedTakesNoPermit() {
        Sluice s = engine(prefix(),
                "sluice.rules.api.concurrency", "1",
                "sluice.rules.api.key", "header:X-User",
                "sluice.rules.api.plan", "header:X-Plan",
                "sluice.rules.api.plans.pro.concurrency", "3",
                "sluice.rules.api.plans.vip.concurrency", "unlimited");
        Map<String, Integer> held = new HashMap<>();
        List<Admission> open = new ArrayList<>();
        for (String plan : new String[]{null, "pro", "vip", "unknown"}) {
            String user = "c-" + UUID.randomUUID();
            int allowed = 0;
            for (int i = 0; i < 12; i++) {
                Admission a = admit(s, user, plan);
                if (a.allowed()) {
                    allowed++;
                    open.add(a);
                }
            }
            held.put(String.valueOf(plan), allowed);
        }
        assertThat(held).containsExactlyInAnyOrderEntriesOf(Map.of("null", 1, "pro", 3, "vip", 12, "unknown", 1));
        open.forEach(Admission::close);
    }

    /** One semaphore per key whatever its plan: a permit held on the default plan counts against pro's 3. */
    @Test
    void aKeyThatChangesPlanKeepsItsPermitsHeld() {
        Sluice s = engine(prefix(),
                "sluice.rules.api.concurrency", "1",
                "sluice.rules.api.key", "header:X-User",
                "sluice.rules.api.plan", "header:X-Plan",
                "sluice.rules.api.plans.pro.concurrency", "3");
        String user = "m-" + UUID.randomUUID();
        List<Admission> open = new ArrayList<>();
        Admission first = admit(s, user, null);
        assertThat(first.allowed()).isTrue();
        open.add(first);
        assertThat(admit(s, user, null).allowed()).as("default plan full").isFalse();
        int onPro = 0;
        for (int i = 0; i < 5; i++) {
            Admission a = admit(s, user, "pro");
            if (a.allowed()) {
                onPro++;
                open.add(a);
            }
        }
        assertThat(onPro).as("pro's 3 less the one held on the default plan").isEqualTo(2);
        open.forEach(Admission::close);
        // Releases are sent without waiting for Redis: wait for them, then the default plan has its one permit.
        Rule api = s.rules().get("api").orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> s.availablePermits(api, user).toCompletableFuture().join() == 1);
        Admission again = admit(s, user, null);
        assertThat(again.allowed()).as("every permit came back").isTrue();
        again.close();
    }

    @Test
    void programmaticPlansChooseTheLimitToo() {
        Sluice s = rateEngine(this, prefix(), "fixed-window");
        Rule rule = s.rules().get("api").orElseThrow();
        KeySource keys = KeySource.fixed("k-" + UUID.randomUUID()).withPlan("pro").withCost(4);
        Decision d = s.admit(List.of(rule), keys).toCompletableFuture().join().headline().orElseThrow();
        assertThat(d.limit()).isEqualTo(10);
        assertThat(d.remaining()).isEqualTo(6);
    }

    private List<String> allKeys(String prefix) {
        List<String> keys = new ArrayList<>();
        redis.client().getKeys().getKeysByPattern(prefix + ":*").forEach(keys::add);
        // Redisson's own sub-keys of a sliding log start with the hash tag Sluice owns.
        redis.client().getKeys().getKeysByPattern("{" + prefix + ":*").forEach(keys::add);
        return keys;
    }

    /** A request with an {@code X-User} and, unless null, an {@code X-Plan} header. */
    private static RequestView request(String user, String plan) {
        FakeRequest r = FakeRequest.from("127.0.0.1").header("X-User", user);
        return plan == null ? r : r.header("X-Plan", plan);
    }

    private static String withoutHashes(String key, List<String> users) {
        for (String user : users) key = key.replace(KeyResolver.hash(user), "<hash>");
        return key;
    }

    private List<String> keysOf(String prefix, String user) {
        String hash = KeyResolver.hash(user);
        return allKeys(prefix).stream().filter(k -> k.contains(hash)).toList();
    }
}
