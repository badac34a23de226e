package io.sluice.redisson;

import io.sluice.key.KeyResolver;
import io.sluice.spi.Algorithm;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RateKeysTest {
    private static final String HASH = KeyResolver.hash("alice");

    @Test
    void aSlidingLogIsARedissonNameWithoutBracesAndWithoutTheLimit() {
        assertThat(RateKeys.name("sluice", "posts", Algorithm.SLIDING_LOG, Duration.ofHours(1), HASH))
                .isEqualTo("sluice:posts:sliding-log:1h:" + HASH);
        assertThat(RateKeys.name("sluice", "posts", Algorithm.SLIDING_LOG, Duration.ofHours(1), HASH))
                .isEqualTo("sluice:posts:sliding-log:1h:" + HASH);
    }

    @Test
    void theOtherAlgorithmsNameRuleAlgorithmAndPeriodInOneHashTagButNotTheLimit() {
        assertThat(RateKeys.name("sluice", "posts", Algorithm.TOKEN_BUCKET, Duration.ofHours(1), HASH))
                .isEqualTo("sluice:{posts:token-bucket:1h:" + HASH + "}");
        // A changed limit keeps the key (and so the usage); a changed period or algorithm does not.
        assertThat(RateKeys.name("sluice", "posts", Algorithm.TOKEN_BUCKET, Duration.ofHours(1), HASH))
                .isEqualTo("sluice:{posts:token-bucket:1h:" + HASH + "}");
        assertThat(RateKeys.name("sluice", "posts", Algorithm.FIXED_WINDOW, Duration.ofMillis(500), HASH))
                .isEqualTo("sluice:{posts:fixed-window:500ms:" + HASH + "}");
    }

    @Test
    void algorithmsNeverShareAKey() {
        Set<String> names = new HashSet<>();
        for (Algorithm a : Algorithm.values()) names.add(RateKeys.name("sluice", "posts", a, Duration.ofMinutes(1), HASH));
        assertThat(names).hasSize(Algorithm.values().length);
    }
}
