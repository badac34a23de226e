package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.testing.RedisKeyAudit;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 100 000 distinct identities, each deciding once under a rate rule (5/2s) and a concurrency rule (lease 1 s): every
 * key Sluice writes has a TTL and Sluice's shape, and once the keep-alive has passed Redis is back to the key count
 * it had before the flood.
 */
@Timeout(240)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class KeyFloodIT {
    @Parameter
    RedisVersion version;

    private static final int IDENTITIES = 100_000;

    @Test
    void aFloodOfIdentitiesLeavesNothingBehind() throws Exception {
        try (RedisProcess redis = version.start();
             Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.backend-timeout", "5s",
                     "sluice.rules.flood.rate", "5/2s",
                     "sluice.rules.slots.concurrency", "2",
                     "sluice.rules.slots.lease", "1s"))) {
            long baseline = (Long) redis.command("DBSIZE");
            List<Rule> rules = List.of(sluice.rules().get("flood").orElseThrow(), sluice.rules().get("slots").orElseThrow());
            Semaphore inFlight = new Semaphore(256); // pipelined: up to 256 decisions on the wire at once
            AtomicLong decided = new AtomicLong();
            AtomicLong other = new AtomicLong();
            long start = System.nanoTime();
            long peakKeys = 0;
            long audited = 0;
            for (int i = 0; i < IDENTITIES; i++) {
                assertThat(inFlight.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
                sluice.admit(rules, KeySource.fixed("identity-" + i)).whenComplete((Admission a, Throwable e) -> {
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
                    // Mid-flood, with the most keys alive: every one has a TTL and Sluice's shape.
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
                    + baseline + " keys " + drainMillis + " ms after the flood");
            assertThat(decided.get()).isEqualTo(IDENTITIES);
            assertThat(peakKeys).isGreaterThan(10_000);
        }
    }
}
