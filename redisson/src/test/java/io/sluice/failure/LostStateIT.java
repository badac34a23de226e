package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.testing.EngineLoad;
import io.sluice.testing.RedisKeyAudit;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis loses Sluice's state (FLUSHALL, a restart without persistence) while requests keep coming: no error
 * reaches a caller, limits are exact again at once, and no semaphore is left in a state that denies forever. The
 * rate rules come in all five algorithms ({@link RateRules}) in one engine: each is exact again, and every key left
 * has a TTL.
 * Losing one key of a pair is covered, fast, by {@link PartialStateLossTest}.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class LostStateIT {
    @Parameter
    RedisVersion version;

    private RedisProcess redis;
    private Sluice sluice;
    /** The rate rules, one per algorithm ({@link RateRules}), and with them the concurrency rule: what the load uses. */
    private final List<String> rates = new ArrayList<>();
    private final List<String> loaded = new ArrayList<>();

    /** A rate rule {@code r-<algorithm>} (5/2s) per algorithm and a concurrency rule {@code c}, on {@code address}. */
    private Map<String, String> rules(String address) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", address);
        rates.clear();
        rates.addAll(RateRules.addAll(p, "r", "5/2s", 0, Map.of()));
        loaded.clear();
        loaded.addAll(rates);
        loaded.add("c");
        p.put("sluice.rules.c.concurrency", "2");
        p.put("sluice.rules.c.lease", "1s");
        return p;
    }

    @BeforeEach
    void start() {
        redis = version.start();
        sluice = Sluice.fromProperties(rules(redis.address()));
    }

    /** Every key Sluice left has a TTL and Sluice's shape. */
    private static void keysAudited(RedisProcess redis) {
        RedisKeyAudit audit = RedisKeyAudit.of(redis.port(), "sluice");
        assertThat(audit.withoutTtl).as(audit.toString()).isEmpty();
        assertThat(audit.malformed).as(audit.toString()).isEmpty();
    }

    @AfterEach
    void stop() {
        if (sluice != null) sluice.close();
        if (redis != null) redis.close();
    }

    private Rule rule(String name) {
        return sluice.rules().get(name).orElseThrow();
    }

    private Admission admit(String rule, String key) {
        return Probe.admit(sluice, rule, key);
    }

    /** On the key: two permits granted, a third refused, and both back after release. */
    private void concurrencyExact(String key) {
        Admission first = admit("c", key);
        Admission second = admit("c", key);
        Admission third = admit("c", key);
        assertThat(List.of(first.allowed(), second.allowed(), third.allowed())).containsExactly(true, true, false);
        assertThat(third.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED);
        first.close();
        second.close();
        await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> sluice.availablePermits(rule("c"), key).toCompletableFuture().join() == 2);
    }

    @Test
    void flushallAndARestartWithoutPersistenceUnderLoad() throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(() -> Probe.exact(sluice, rates));
        try (EngineLoad load = EngineLoad.start(sluice, 4, 5, loaded)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> load.decided.get() > 200);
            for (int i = 0; i < 3; i++) {
                long before = load.decided.get();
                redis.command("FLUSHALL");
                await().atMost(Duration.ofSeconds(10)).until(() -> load.decided.get() > before + 100);
            }
            redis.restart(); // no persistence: everything is gone
            long before = load.decided.get();
            await().atMost(Duration.ofSeconds(20)).until(() -> load.decided.get() > before + 200);
            load.close();
            System.out.println("lost state: " + load.decisions.get() + " decisions through 3 FLUSHALLs and a restart, "
                    + load.backendFailures.get() + " failure decisions, " + load.errors.get() + " errors");
            assertThat(load.errors.get()).as("errors reaching callers: " + load.firstError()).isZero();
            assertThat(load.policyViolations.get()).isZero();
        }
        long healedAt = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).until(() -> Probe.exact(sluice, rates));
        // Permits granted before a flush and released after it, or granted in the flush's shadow: all free again
        // within a lease, on every key the load used.
        for (int k = 0; k < 5; k++) {
            String key = "k" + k;
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> sluice.availablePermits(rule("c"), key).toCompletableFuture().join() == 2);
        }
        System.out.println("lost state: every limit exact again " + (System.nanoTime() - healedAt) / 1_000_000 + " ms after the load");
        concurrencyExact("k0");
        keysAudited(redis);
    }

    @Test
    void randomEvictionUnderLoad() throws Exception {
        try (RedisProcess small = version.start("maxmemory-policy allkeys-random");
             Sluice evicted = Sluice.fromProperties(rules(small.address()))) {
            await().atMost(Duration.ofSeconds(20)).until(() -> rates.stream().allMatch(r -> Probe.decidedByRedis(evicted, r)));
            // Room for a few thousand of the load's 40 000 keys: Sluice's keys are evicted at random. (With only
            // 50 KB to spare, the clients' own query and reply buffers, which count as used memory, left nothing
            // to evict on a busy machine and Redis refused every write as out of memory.)
            long used = info(small, "memory", "used_memory");
            small.command("CONFIG", "SET", "maxmemory", Long.toString(used + 1_000_000));
            try (EngineLoad load = EngineLoad.start(evicted, 4, 20_000, loaded)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> info(small, "stats", "evicted_keys") > 1_000);
                long before = load.decided.get();
                await().atMost(Duration.ofSeconds(20)).until(() -> load.decided.get() > before + 500);
                load.close();
                System.out.println("eviction: " + load.decisions.get() + " decisions while Redis evicted "
                        + info(small, "stats", "evicted_keys") + " keys at random; " + load.errors.get() + " errors");
                assertThat(load.errors.get()).as("errors reaching callers: " + load.firstError()).isZero();
                assertThat(load.policyViolations.get()).isZero();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> Probe.exact(evicted, rates));
            Rule c = evicted.rules().get("c").orElseThrow();
            // Within a lease every semaphore (asked through the monitoring call, which a loaded machine may time out) the load used is whole again, whichever of its keys were evicted.
            for (int k = 0; k < 20_000; k += 499) {
                String key = "k" + k;
                await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> evicted.availablePermits(c, key).toCompletableFuture().join() == 2);
            }
            keysAudited(small);
        }
    }

    private static long info(RedisProcess redis, String section, String field) {
        for (String line : ((String) redis.command("INFO", section)).split("\r\n")) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1).trim());
        }
        throw new IllegalStateException(field + " not in INFO " + section);
    }
}
