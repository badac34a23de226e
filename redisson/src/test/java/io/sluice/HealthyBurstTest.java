package io.sluice;

import io.sluice.rule.Settings;
import io.sluice.testing.Connected;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A burst of the application's own making against a healthy Redis is never mistaken for a Redis that is down:
 * 13 keys x 10 concurrent requests at once against a {@code 7/1m} rule, 20 rounds, on a fresh engine with the
 * default 100 ms deadline. Every round admits exactly 7 per key and no decision follows {@code on-backend-failure}.
 * On the previous main the bursts of a fresh engine queued past the deadline on this loaded 2-core machine (a
 * round took up to 400 ms of wall time) and were admitted by the failure policy: 6 to 130 decisions a round.
 */
@Timeout(300)
class HealthyBurstTest {
    private static final int KEYS = 13;
    private static final int PER_KEY = 10;
    private static final int LIMIT = 7;
    private static final int ROUNDS = 20;

    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void aBurstOnAHealthyRedisIsDecidedExactlyAndNeverByTheFailurePolicy(String algorithm) throws Exception {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.address", TestRedis.address());
        p.put("sluice.key-prefix", "burst-" + System.nanoTime());
        p.put("sluice.rules.r.rate", LIMIT + "/1m");
        p.put("sluice.rules.r.algorithm", algorithm);
        assertThat(Settings.DEFAULT_BACKEND_TIMEOUT.toMillis()).isEqualTo(100);
        ExecutorService threads = Executors.newFixedThreadPool(KEYS * PER_KEY);
        try (Sluice sluice = Sluice.fromProperties(p)) {
            Connected.await(sluice);
            var rule = sluice.rules().get("r").orElseThrow();
            for (int round = 0; round < ROUNDS; round++) {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Admission>> all = new ArrayList<>();
                for (int k = 0; k < KEYS; k++) {
                    String key = "round-" + round + "-key-" + k;
                    for (int i = 0; i < PER_KEY; i++) {
                        all.add(threads.submit(() -> {
                            start.await();
                            return sluice.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().join();
                        }));
                    }
                }
                start.countDown();
                Map<String, Integer> admitted = new HashMap<>();
                int byPolicy = 0;
                for (int j = 0; j < all.size(); j++) {
                    Admission a = all.get(j).get();
                    Decision d = a.decisions().get(0);
                    if (d.outcome() != Decision.Outcome.DECIDED) byPolicy++;
                    if (a.allowed()) admitted.merge("key-" + j / PER_KEY, 1, Integer::sum);
                }
                assertThat(byPolicy).as("round %d: decisions by the failure policy", round).isZero();
                assertThat(admitted).as("round %d", round).hasSize(KEYS).allSatisfy((k, n) -> assertThat(n).isEqualTo(LIMIT));
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
