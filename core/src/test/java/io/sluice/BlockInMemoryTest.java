package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code block}, {@link Sluice#usage} and {@link Sluice#reset} on the in-memory backend, time from a hand-driven
 * clock: the same semantics as on Redis, for every algorithm.
 */
class BlockInMemoryTest {
    private final MutableClock clock = MutableClock.startingNow();

    private Sluice engine(Algorithm algorithm) {
        return Sluice.builder().inMemory().clock(clock).ticker(clock).properties(Map.of(
                "sluice.rules.login.rate", "3/1m",
                "sluice.rules.login.algorithm", algorithm.id(),
                "sluice.rules.login.block", "15m")).build();
    }

    private static Decision decide(Sluice s, String key) throws Exception {
        Rule rule = s.rules().get("login").orElseThrow();
        Admission a = s.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        a.close();
        return a.decisions().get(0);
    }

    private static Usage usage(Sluice s, String key) throws Exception {
        return s.usage("login", key).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRejectionBlocksTheKeyUntilTheBlockEndsOrAReset(Algorithm algorithm) throws Exception {
        try (Sluice s = engine(algorithm)) {
            int atOnce = algorithm == Algorithm.LEAKY_BUCKET ? 1 : 3;
            assertThat(usage(s, "alice").rate().orElseThrow().remaining()).isEqualTo(atOnce);
            for (int i = 0; i < atOnce; i++) assertThat(decide(s, "alice").allowed()).isTrue();
            Decision rejected = decide(s, "alice");
            assertThat(rejected.allowed()).isFalse();
            assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMinutes(15));
            assertThat(rejected.remaining()).isZero();
            assertThat(usage(s, "alice").blocked()).isEqualTo(Duration.ofMinutes(15));
            assertThat(decide(s, "bob").allowed()).isTrue();

            clock.advance(Duration.ofMinutes(14));
            assertThat(decide(s, "alice").retryAfter()).isEqualTo(Duration.ofMinutes(1));
            clock.advance(Duration.ofMinutes(1));
            assertThat(usage(s, "alice").isBlocked()).isFalse();
            for (int i = 0; i < atOnce; i++) assertThat(decide(s, "alice").allowed()).isTrue();
            assertThat(decide(s, "alice").retryAfter()).isEqualTo(Duration.ofMinutes(15));

            s.reset("login", "alice").toCompletableFuture().get(5, TimeUnit.SECONDS);
            Usage after = usage(s, "alice");
            assertThat(after.isBlocked()).isFalse();
            assertThat(after.rate().orElseThrow()).isEqualTo(new Usage.RateLimit(3, atOnce, Duration.ZERO));
            for (int i = 0; i < atOnce; i++) assertThat(decide(s, "alice").allowed()).isTrue();
        }
    }
}
