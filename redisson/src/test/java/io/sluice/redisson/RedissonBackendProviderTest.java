package io.sluice.redisson;

import io.sluice.Admission;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.spi.BackendProvider;
import io.sluice.testing.TestRedis;
import io.sluice.testing.TestRedisson;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** How an engine comes to use Redis: the provider ServiceLoader finds, or an application's own client. */
class RedissonBackendProviderTest {

    @Test
    void serviceLoaderFindsThisModulesProvider() {
        List<String> found = ServiceLoader.load(BackendProvider.class).stream()
                .map(provider -> provider.type().getName()).toList();
        assertThat(found).containsExactly(RedissonBackendProvider.class.getName());
    }

    @Test
    void anEngineBuiltWithoutABackendDecidesInRedis() {
        try (Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", TestRedis.address(),
                "sluice.key-prefix", "provider-test-" + System.nanoTime(), "sluice.rules.r.rate", "2/1h"))) {
            assertThat(decide(sluice)).containsExactly(true, true, false);
        }
    }

    @Test
    void anApplicationsOwnClientIsUsedAndLeftOpen() {
        RedissonClient client = TestRedisson.client();
        try {
            // The rules name a Redis nobody listens on: only the application's client reaches one.
            try (Sluice sluice = Sluice.builder().properties(Map.of(
                            "sluice.redis.address", "redis://127.0.0.1:" + TestRedis.freePort(),
                            "sluice.key-prefix", "provider-test-" + System.nanoTime(), "sluice.rules.r.rate", "2/1h"))
                    .backend(RedissonBackendProvider.using(client)).build()) {
                assertThat(sluice.connected()).isTrue();
                assertThat(decide(sluice)).containsExactly(true, true, false);
            }
            assertThat(client.isShutdown()).isFalse();
        } finally {
            client.shutdown();
        }
    }

    private static List<Boolean> decide(Sluice sluice) {
        Rule rule = sluice.rules().get("r").orElseThrow();
        return IntStream.range(0, 3).mapToObj(i -> {
            try (Admission a = sluice.admit(List.of(rule), k -> "alice").toCompletableFuture().join()) {
                return a.allowed();
            }
        }).toList();
    }
}
