package io.sluice.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The shield's memory: bounded, swept of expired keys at most once a second, never growing past its bound. */
class DenyCacheTest {
    @Test
    void aFullCacheForgetsExpiredKeysAtMostOnceASecondAndOtherwiseStopsRemembering() {
        DenyCache cache = new DenyCache(3);
        cache.deny("a", 0, 10_000);
        cache.deny("b", 0, 10_000);
        cache.deny("c", 0, 500);
        assertThat(cache.check("a", 0).deniedMillis()).isEqualTo(10_000);

        cache.deny("d", 100, 10_000); // full, nothing expired yet: not remembered (this sweep found nothing)
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.check("d", 100).deniedMillis()).isZero();

        cache.deny("e", 600, 10_000); // "c" has expired, but the last sweep was 0.5 s ago: no scan yet
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.check("e", 600).deniedMillis()).isZero();

        cache.deny("f", 1_100, 10_000); // a second after the last sweep: "c" goes, "f" takes its place
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.check("f", 1_100).deniedMillis()).isEqualTo(10_000);
        assertThat(cache.check("a", 1_100).deniedMillis()).isEqualTo(8_900);
    }
}
