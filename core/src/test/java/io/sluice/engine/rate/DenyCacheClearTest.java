package io.sluice.engine.rate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A reload clears the shield: keys it knew as exhausted are asked of the backend again. */
class DenyCacheClearTest {
    @Test
    void clearForgetsEveryKey() {
        DenyCache cache = new DenyCache(10);
        cache.remember("a", 0, 1_000, 0, 10, 10);
        cache.remember("b", 0, 1_000, 2, 10, 10);
        assertThat(cache.known("a", 10, 10, 10)).isNotNull();
        assertThat(cache.known("b", 10, 10, 10).remaining()).isEqualTo(2);

        cache.clear();

        assertThat(cache.known("a", 20, 10, 10)).isNull();
        assertThat(cache.known("b", 20, 10, 10)).isNull();
        assertThat(cache.size()).isZero();
    }
}
