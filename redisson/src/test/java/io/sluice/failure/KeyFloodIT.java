package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RateKeys;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rate;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.testing.RedisKeyAudit;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.Resp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 100 000 distinct identities, each deciding once under a rate rule (5/2s) and a concurrency rule (lease 1 s), the
 * rate rules spread over the five algorithms (identity i under algorithm i % 5, {@link RateRules}): every key Sluice
 * writes has a TTL and Sluice's shape, a key of an algorithm on Redis TIME takes at most 200 bytes, and once the
 * keep-alive has passed Redis is back to the key count it had before the flood.
 */
@Timeout(240)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class KeyFloodIT {
    @Parameter
    RedisVersion version;

    private static final int IDENTITIES = 100_000;
    private static final String RATE = "5/2s";
    private static final List<Algorithm> ALGORITHMS = List.of(Algorithm.values());
    /** The bound for the algorithms on Redis TIME: all keys of one rule and key. */
    private static final long MAX_BYTES_PER_KEY = 200;
    /** Sampled: the newest identities, all decided, the keys of the oldest of them possibly expired already. */
    private static final int SAMPLES = 500;

    @Test
    void aFloodOfIdentitiesLeavesNothingBehind() throws Exception {
        try (RedisProcess redis = version.start();
             Sluice sluice = Sluice.fromProperties(properties(redis.address()))) {
            long baseline = (Long) redis.command("DBSIZE");
            Rule slots = sluice.rules().get("slots").orElseThrow();
            List<List<Rule>> rulesByAlgorithm = new ArrayList<>();
            for (Algorithm a : ALGORITHMS) rulesByAlgorithm.add(List.of(sluice.rules().get(RateRules.name("flood", a)).orElseThrow(), slots));
            Semaphore inFlight = new Semaphore(256); // pipelined: up to 256 decisions on the wire at once
            AtomicLong decided = new AtomicLong();
            AtomicLong other = new AtomicLong();
            long start = System.nanoTime();
            Map<Algorithm, Long> measured = Map.of();
            long peakKeys = 0;
            long audited = 0;
            for (int i = 0; i < IDENTITIES; i++) {
                assertThat(inFlight.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
                // Identity i is limited by the flood rule of algorithm i % 5, and by the concurrency rule.
                sluice.admit(rulesByAlgorithm.get(i % ALGORITHMS.size()), KeySource.fixed("identity-" + i)).whenComplete((Admission a, Throwable e) -> {
                    if (e == null && a.allowed() && a.decisions().size() == 2
                            && a.decisions().stream().allMatch(d -> d.outcome() == Decision.Outcome.DECIDED)) {
                        decided.incrementAndGet();
                    } else {
                        other.incrementAndGet();
                    }
                    if (a != null) a.close();
                    inFlight.release();
                });
                if (i == IDENTITIES / 2) {
                    // Mid-flood, every decision sent so far answered (so the newest keys exist), with the most keys
                    // alive: every one has a TTL and Sluice's shape.
                    assertThat(inFlight.tryAcquire(256, 60, TimeUnit.SECONDS)).isTrue();
                    measured = bytesPerKey(redis, i + 1);
                    inFlight.release(256);
                    RedisKeyAudit audit = RedisKeyAudit.of(redis.port(), "sluice");
                    assertThat(audit.withoutTtl).as(audit.toString()).isEmpty();
                    assertThat(audit.malformed).as(audit.toString()).isEmpty();
                    audited += audit.keys;
                    peakKeys = Math.max(peakKeys, (Long) redis.command("DBSIZE"));
                }
            }
            assertThat(inFlight.tryAcquire(256, 60, TimeUnit.SECONDS)).isTrue();
            long floodMillis = (System.nanoTime() - start) / 1_000_000;
            long afterFlood = (Long) redis.command("DBSIZE");
            peakKeys = Math.max(peakKeys, afterFlood);
            RedisKeyAudit audit = RedisKeyAudit.of(redis.port(), "sluice");
            assertThat(audit.withoutTtl).as(audit.toString()).isEmpty();
            assertThat(audit.malformed).as(audit.toString()).isEmpty();
            audited += audit.keys;
            long flooded = System.nanoTime();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> (Long) redis.command("DBSIZE") == baseline);
            long drainMillis = (System.nanoTime() - flooded) / 1_000_000;
            System.out.println("key flood: " + IDENTITIES + " identities x 2 rules in " + floodMillis + " ms ("
                    + decided.get() + " decided by Redis, " + other.get() + " not); up to " + peakKeys
                    + " keys seen, " + audited + " audited (all with a TTL and Sluice's shape); back to the baseline of "
                    + baseline + " keys " + drainMillis + " ms after the flood; largest MEMORY USAGE of a sampled key, per algorithm: "
                    + measured);
            assertThat(decided.get()).isEqualTo(IDENTITIES);
            assertThat(peakKeys).isGreaterThan(10_000);
            assertThat(measured.keySet()).as("keys of every algorithm on Redis TIME sampled").hasSize(ALGORITHMS.size() - 1);
            measured.forEach((a, bytes) -> assertThat(bytes).as("bytes of one " + a + " key").isLessThanOrEqualTo(MAX_BYTES_PER_KEY));
        }
    }

    private static Map<String, String> properties(String address) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", address);
        p.put("sluice.backend-timeout", "5s");
        RateRules.addAll(p, "flood", RATE, Map.of());
        p.put("sluice.rules.slots.concurrency", "2");
        p.put("sluice.rules.slots.lease", "1s");
        return p;
    }

    /**
     * The largest {@code MEMORY USAGE} among the keys of the identities decided just before identity {@code sent}, per
     * algorithm on Redis TIME (each one key per identity); sliding-log's two keys grow with the limit and are measured
     * in BENCHMARKS.md.
     */
    private static Map<Algorithm, Long> bytesPerKey(RedisProcess redis, int sent) {
        Map<Algorithm, Long> largest = new EnumMap<>(Algorithm.class);
        Rate rate = Rate.parse(RATE).orElseThrow();
        try (Resp resp = Resp.connect(redis.port(), Duration.ofSeconds(10))) {
            for (int i = sent - 1; i >= sent - SAMPLES; i--) {
                Algorithm a = ALGORITHMS.get(i % ALGORITHMS.size());
                if (a == Algorithm.SLIDING_LOG) continue;
                String key = RateKeys.name("sluice", RateRules.name("flood", a), a, rate.period(), KeyResolver.hash("identity-" + i));
                Object bytes = resp.call("MEMORY", "USAGE", key, "SAMPLES", "0");
                if (bytes instanceof Long b) largest.merge(a, b, Math::max); // null: already expired
            }
        }
        return largest;
    }
}
