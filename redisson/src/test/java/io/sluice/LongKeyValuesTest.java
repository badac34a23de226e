package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.key.FakeRequest;
import io.sluice.key.KeyResolver;
import io.sluice.redisson.CallerClockBackend;
import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key values are hashed whole, on a real Redis: two {@code X-Api-Key} values of 8 208 characters that differ only
 * after the 8 192nd are two counters (on the previous main they were cut at 8 192 characters and shared one), and a
 * 1 MB value is counted exactly like any other, under a combined key too.
 */
class LongKeyValuesTest {
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();
    private final MutableClock clock = new MutableClock(System.currentTimeMillis());
    private final String prefix = "longkeys" + UUID.randomUUID().toString().substring(0, 8);

    private Sluice engine() {
        return Sluice.builder().backend(CallerClockBackend.of(redisson.client(), clock)).clock(clock).ticker(clock)
                .properties(Map.of("sluice.key-prefix", prefix,
                        "sluice.rules.api.key", "header:X-Api-Key", "sluice.rules.api.rate", "3/1h",
                        "sluice.rules.pair.key", "header:X-Api-Key+ip", "sluice.rules.pair.rate", "2/1h"))
                .build();
    }

    /** Admitted of {@code n} requests carrying {@code apiKey}, under one rule. */
    private static int admitted(Sluice s, String rule, String apiKey, int n) {
        Rule r = s.rules().get(rule).orElseThrow();
        FakeRequest request = FakeRequest.from("203.0.113.9").header("X-Api-Key", apiKey);
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            try (Admission a = s.admit(List.of(r), s.keysOf(request)).toCompletableFuture().join()) {
                assertThat(a.decisions()).allMatch(d -> d.outcome() == Decision.Outcome.DECIDED);
                if (a.allowed()) admitted++;
            }
        }
        return admitted;
    }

    @Test
    void twoLongApiKeysDifferingOnlyAfter8192CharactersAreTwoCounters() {
        String common = "k".repeat(8_192);
        String first = common + "-client-0001";
        String second = common + "-client-0002";
        assertThat(first).hasSize(8_204);
        try (Sluice s = engine()) {
            assertThat(admitted(s, "api", first, 5)).isEqualTo(3);
            assertThat(admitted(s, "api", second, 5)).as("a counter of its own").isEqualTo(3);
            assertThat(admitted(s, "pair", first, 4)).isEqualTo(2);
            assertThat(admitted(s, "pair", second, 4)).isEqualTo(2);
            Rule api = s.rules().get("api").orElseThrow();
            assertThat(EngineProbe.keyOf(s.engine(), api, first)).isNotEqualTo(EngineProbe.keyOf(s.engine(), api, second))
                    .endsWith(KeyResolver.hash(first)).hasSizeLessThan(100);
        }
    }

    @Test
    void aOneMegabyteValueIsCountedExactly() {
        String huge = "m".repeat(1_048_576);
        String hugeToo = "m".repeat(1_048_575) + "n";
        try (Sluice s = engine()) {
            assertThat(admitted(s, "api", huge, 6)).isEqualTo(3);
            assertThat(admitted(s, "api", hugeToo, 6)).isEqualTo(3);
            assertThat(admitted(s, "pair", huge, 4)).isEqualTo(2);
            assertThat(admitted(s, "pair", hugeToo, 4)).isEqualTo(2);
            Rule api = s.rules().get("api").orElseThrow();
            String key = EngineProbe.keyOf(s.engine(), api, huge);
            assertThat(key).hasSizeLessThan(100);
            // The sliding log holds the three permits under the hashed name; no raw character reached Redis.
            assertThat(redisson.client().getScoredSortedSet("{" + key + "}:permits").size()).isEqualTo(3);
        }
    }
}
