package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.rule.Rule;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code on-backend-failure=local} on three engines sharing one real Redis, each announced in it (so each divides by
 * 3): the Redis frozen (SIGSTOP), then thawed, then stopped (SIGKILL) and started again empty. During each outage every
 * engine admits exactly its share of a rate rule (20/1h: 6 each, 18 in all, within limit + n - 1 = 22) and holds
 * exactly its share of a concurrency rule in flight (7: 2 each); once Redis answers again it decides exactly again, and
 * the concurrency permits it granted late to calls made during the freeze are back. In the failure suites' place (it freezes real processes) but in this package, to reach the engines.
 */
@Timeout(300)
class LocalOutageIT {
    private static final int ENGINES = 3;
    private static final int RATE = 20;
    private static final int SHARE = RATE / ENGINES;
    private static final int CONCURRENCY = 7;
    private static final int CONCURRENCY_SHARE = CONCURRENCY / ENGINES;

    private static Admission admit(Sluice s, String rule, String key) {
        Rule r = s.rules().get(rule).orElseThrow();
        return s.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join();
    }

    /** Sends {@code each} requests of {@code key} to every engine in turn; the admitted count per engine. */
    private static int[] rate(List<Sluice> engines, String key, int each, Decision.Outcome expected) {
        int[] admitted = new int[engines.size()];
        for (int round = 0; round < each; round++) {
            for (int e = 0; e < engines.size(); e++) {
                Admission a = admit(engines.get(e), "login", key);
                assertThat(a.decisions().get(0).outcome()).as("engine " + e + ", request " + round).isEqualTo(expected);
                if (a.allowed()) admitted[e]++;
                a.close();
            }
        }
        return admitted;
    }

    /** {@code each} concurrent requests per engine, held; the admitted per engine (the held ones are added to held). */
    private static int[] hold(List<Sluice> engines, String key, int each, List<Admission> held, Decision.Outcome expected) {
        int[] admitted = new int[engines.size()];
        for (int e = 0; e < engines.size(); e++) {
            for (int i = 0; i < each; i++) {
                Admission a = admit(engines.get(e), "slots", key);
                assertThat(a.decisions().get(0).outcome()).isEqualTo(expected);
                if (a.allowed()) {
                    admitted[e]++;
                    held.add(a);
                }
            }
        }
        return admitted;
    }

    private static void awaitRedisDecides(List<Sluice> engines) {
        for (Sluice s : engines) {
            await("Redis decides again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        try (Admission a = admit(s, "login", "probe-" + System.nanoTime())) {
                            return a.decisions().get(0).outcome() == Decision.Outcome.DECIDED;
                        }
                    });
        }
    }

    @Test
    void threeEnginesLimitByTheirShareWhileRedisIsFrozenOrStoppedAndRedisDecidesExactlyOnceBack() {
        try (RedisProcess redis = RedisProcess.start()) {
            List<Sluice> engines = new ArrayList<>();
            try {
                for (int i = 0; i < ENGINES; i++) {
                    engines.add(Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                            "sluice.on-backend-failure", "local",
                            "sluice.rules.login.rate", RATE + "/1h",
                            "sluice.rules.slots.concurrency", Integer.toString(CONCURRENCY),
                            "sluice.rules.slots.key", "global")));
                }
                for (Sluice s : engines) Connected.await(s, "login");
                for (Sluice s : engines) EngineProbe.announce(s.engine()).join();
                for (Sluice s : engines) assertThat(EngineProbe.announce(s.engine()).join()).isEqualTo(ENGINES);
                for (Sluice s : engines) assertThat(EngineProbe.localDivisor(s.engine())).isEqualTo(ENGINES);

                // Before: Redis counts 5 of alice's 20.
                assertThat(rate(engines.subList(0, 1), "alice", 5, Decision.Outcome.DECIDED)).containsExactly(5);

                // 1. Frozen: each engine its share of alice, exactly; the share of the concurrency rule in flight.
                List<Admission> held = new ArrayList<>();
                int[] frozenRate;
                int[] frozenSlots;
                redis.freeze();
                try {
                    frozenRate = rate(engines, "alice", 10, Decision.Outcome.FAILED_LOCAL);
                    frozenSlots = hold(engines, "*", 4, held, Decision.Outcome.FAILED_LOCAL);
                } finally {
                    redis.thaw();
                }
                System.out.printf("local, Redis frozen: rate %d/1h on %d engines: admitted %s of %d each (total %d, bound %d);"
                                + " concurrency %d: in flight %s of 4 each%n", RATE, ENGINES, java.util.Arrays.toString(frozenRate), 10,
                        sum(frozenRate), RATE + ENGINES - 1, CONCURRENCY, java.util.Arrays.toString(frozenSlots));
                assertThat(frozenRate).containsExactly(SHARE, SHARE, SHARE);
                assertThat(sum(frozenRate)).isLessThanOrEqualTo(RATE + ENGINES - 1);
                assertThat(frozenSlots).containsExactly(CONCURRENCY_SHARE, CONCURRENCY_SHARE, CONCURRENCY_SHARE);
                held.forEach(Admission::close);
                held.clear();

                // Back: Redis decides, exactly, for a key it has not seen. Alice keeps in Redis what it counted: her 5, and
                // the calls made during the freeze that Redis ran after the thaw, whose answer the client had given up on
                // (no answer, so nothing to give back: as with deny); none of the 18 admitted locally.
                awaitRedisDecides(engines);
                int[] fresh = rate(engines, "dave", 10, Decision.Outcome.DECIDED);
                assertThat(sum(fresh)).isEqualTo(RATE);
                int[] afterFreeze = rate(engines, "alice", 7, Decision.Outcome.DECIDED);
                long callsInTheFreeze = engines.stream().mapToLong(s -> s.stats().backendCalls()).sum();
                System.out.println("local, Redis thawed: dave admitted by Redis " + java.util.Arrays.toString(fresh)
                        + "; alice " + java.util.Arrays.toString(afterFreeze) + " (15 left before the freeze; backend calls so far "
                        + callsInTheFreeze + ")");
                assertThat(sum(afterFreeze)).isBetween(0, 15);
                Rule slots = engines.get(0).rules().get("slots").orElseThrow();
                await("late concurrency permits given back").atMost(Duration.ofSeconds(60))
                        .until(() -> engines.get(0).availablePermits(slots, "*").toCompletableFuture().join() == CONCURRENCY);
                assertThat(hold(engines, "*", 4, held, Decision.Outcome.DECIDED)).containsExactly(4, 3, 0);
                held.forEach(Admission::close);
                held.clear();

                // 2. Stopped: the same shares for a key Redis never saw.
                redis.kill();
                int[] stoppedRate = rate(engines, "bob", 10, Decision.Outcome.FAILED_LOCAL);
                int[] stoppedSlots = hold(engines, "*", 4, held, Decision.Outcome.FAILED_LOCAL);
                System.out.printf("local, Redis stopped: bob admitted %s of 10 each (total %d); concurrency in flight %s%n",
                        java.util.Arrays.toString(stoppedRate), sum(stoppedRate), java.util.Arrays.toString(stoppedSlots));
                assertThat(stoppedRate).containsExactly(SHARE, SHARE, SHARE);
                // Local permits of the frozen phase were returned: the same share again.
                assertThat(stoppedSlots).containsExactly(CONCURRENCY_SHARE, CONCURRENCY_SHARE, CONCURRENCY_SHARE);
                held.forEach(Admission::close);
                held.clear();

                // Started again, empty: Redis decides exactly.
                redis.restart();
                awaitRedisDecides(engines);
                int[] restarted = rate(engines, "carol", 10, Decision.Outcome.DECIDED);
                System.out.println("local, Redis restarted: carol admitted by Redis " + java.util.Arrays.toString(restarted));
                assertThat(sum(restarted)).isEqualTo(RATE);
            } finally {
                engines.forEach(Sluice::close);
            }
        }
    }

    private static int sum(int[] counts) {
        int total = 0;
        for (int c : counts) total += c;
        return total;
    }
}
