package io.sluice.redisson;

import io.sluice.rule.RuleParser;
import io.sluice.spi.Algorithm;
import io.sluice.spi.BackendContract;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.RedisCluster;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.RedisYaml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The backend contract on a real 3-master Redis Cluster, through a client built from Redisson's own
 * cluster YAML ({@code sluice.redis.config}): every script's keys must sit in one slot.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class RedissonBackendClusterIT extends BackendContract {
    private static RedissonClient redisson;
    private static RedisCluster cluster;

    @Parameter
    RedisVersion version;

    @BeforeParameterizedClassInvocation
    static void connect(RedisVersion version) {
        cluster = RedisCluster.shared(version);
        String yaml = RedisYaml.file(cluster.yaml());
        redisson = RedissonClients.create(RuleParser.parse(Map.of("sluice.redis.config", yaml)).settings(), null);
    }

    @AfterParameterizedClassInvocation
    static void disconnect() {
        if (redisson != null) redisson.shutdown();
        redisson = null;
    }

    @Override
    protected LimiterBackend backend(MutableClock clock) {
        // The contract moves time: the algorithms on Redis TIME take this clock's instead.
        return RedissonBackend.onCallerClock(redisson, clock, Duration.ofSeconds(5));
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    /**
     * Decisions for many keys at once share script calls only within a slot: a call mixing slots would fail with
     * CROSSSLOT. 64 callers over 300 keys of every algorithm, each key asked 3 times under a limit of 2: every
     * decision answered by Redis, exactly 2 admitted per key.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void concurrentDecisionsOverManyKeysAreExactOnACluster(Algorithm algorithm) throws Exception {
        String run = UUID.randomUUID().toString();
        List<RateRequest> asks = new ArrayList<>();
        for (int k = 0; k < 300; k++) {
            RateRequest r = RateRequest.of(algorithm, "spread-" + run + "-" + k, 2, Duration.ofMinutes(10));
            if (algorithm == Algorithm.LEAKY_BUCKET) r = r.withQueue(1);
            for (int i = 0; i < 3; i++) asks.add(r);
        }
        Collections.shuffle(asks, new Random(algorithm.ordinal()));
        ExecutorService callers = Executors.newFixedThreadPool(64);
        try {
            List<Future<RateOutcome>> answers = new ArrayList<>();
            for (RateRequest r : asks) answers.add(callers.submit(() -> backend.tryConsume(r).toCompletableFuture().get(30, TimeUnit.SECONDS)));
            Map<String, Integer> admitted = new HashMap<>();
            for (int i = 0; i < asks.size(); i++) {
                if (answers.get(i).get().allowed()) admitted.merge(asks.get(i).key(), 1, Integer::sum);
            }
            assertThat(admitted).hasSize(300);
            assertThat(admitted.values()).containsOnly(2);
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void redisTimeIsReadThroughAKeylessScriptOnACluster() {
        assertThat(cluster.masters()).hasSize(3);
        // A new backend connects in the background and refuses to measure time before (the wait would count
        // as round-trip time): wait for that connection, not for some time.
        ((RedissonBackend) backend).firstConnection().toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).join();
        long now = System.currentTimeMillis();
        assertThat(((RedissonBackend) backend).serverTimeMillis().toCompletableFuture().join()).isBetween(now - 60_000, now + 60_000);
    }
}
