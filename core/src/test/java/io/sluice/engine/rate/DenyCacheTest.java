package io.sluice.engine.rate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shield's memory: what remains per key and until when, only for the limit it was counted against; bounded,
 * swept of expired keys at most once a second, never growing past its bound.
 */
class DenyCacheTest {
    private static long millis(DenyCache cache, String key, long now) {
        DenyCache.Known k = cache.known(key, now, 10, 10);
        return k == null ? 0 : k.millisLeft(now);
    }

    @Test
    void aFullCacheForgetsExpiredKeysAtMostOnceASecondAndOtherwiseStopsRemembering() {
        DenyCache cache = new DenyCache(3);
        cache.remember("a", 0, 10_000, 0, 10, 10);
        cache.remember("b", 0, 10_000, 0, 10, 10);
        cache.remember("c", 0, 500, 0, 10, 10);
        assertThat(millis(cache, "a", 0)).isEqualTo(10_000);

        cache.remember("d", 100, 10_000, 0, 10, 10); // full, nothing expired yet: not remembered
        assertThat(cache.size()).isEqualTo(3);
        assertThat(millis(cache, "d", 100)).isZero();

        cache.remember("e", 600, 10_000, 0, 10, 10); // "c" has expired, but the last sweep was 0.5 s ago: no scan yet
        assertThat(cache.size()).isEqualTo(3);
        assertThat(millis(cache, "e", 600)).isZero();

        cache.remember("f", 1_100, 10_000, 0, 10, 10); // a second after the last sweep: "c" goes, "f" takes its place
        assertThat(cache.size()).isEqualTo(3);
        assertThat(millis(cache, "f", 1_100)).isEqualTo(10_000);
        assertThat(millis(cache, "a", 1_100)).isEqualTo(8_900);
        // A key already remembered is updated even when full.
        cache.remember("a", 1_200, 500, 2, 10, 10);
        assertThat(cache.known("a", 1_200, 10, 10).remaining()).isEqualTo(2);
    }

    @Test
    void whatRemainsAppliesOnlyUnderTheLimitItWasCountedAgainstAndUntilItsReset() {
        DenyCache cache = new DenyCache(10);
        cache.remember("k", 1_000, 2_000, 3, 10, 20);
        assertThat(cache.known("k", 1_000, 10, 20).remaining()).isEqualTo(3);
        assertThat(cache.known("k", 1_000, 100, 20)).as("another limit (a plan)").isNull();
        assertThat(cache.known("k", 1_000, 10, 5)).as("another capacity").isNull();
        assertThat(cache.known("k", 2_998, 10, 20).millisLeft(2_998)).isEqualTo(2);
        // The reset was rounded up to the millisecond: in its last millisecond the permit may be free already.
        assertThat(cache.known("k", 2_999, 10, 20)).isNull();
        cache.remember("j", 1_000, 1, 0, 10, 20);
        assertThat(cache.known("j", 1_000, 10, 20)).as("a reset within the rounding is not remembered").isNull();
        cache.clear();
        assertThat(cache.known("k", 1_000, 10, 20)).isNull();
    }

    @Test
    void afterARequestWhatIsCertainlyLeftAccountsForItBeingTakenOrRejected() {
        assertThat(DenyCache.afterRequest(3, 1)).isEqualTo(2);
        assertThat(DenyCache.afterRequest(1, 1)).isEqualTo(0);
        // Cost 2 of at most 5: taken leaves 3; rejected means at most 1 was there. At most 3 either way.
        assertThat(DenyCache.afterRequest(5, 2)).isEqualTo(3);
        // Cost 4 of at most 5: taken leaves 1; rejected means at most 3. So at most 3.
        assertThat(DenyCache.afterRequest(5, 4)).isEqualTo(3);
        assertThat(DenyCache.afterRequest(2, 10)).as("never more than before").isEqualTo(2);
        assertThat(DenyCache.afterRequest(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE - 1);
    }
}
