package io.sluice.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** A reload clears the shield: denied keys are free again, and callers waiting for a probe are let go to look again. */
class DenyCacheClearTest {
    @Test
    void clearFreesDeniedKeysAndReleasesCallersWaitingForAProbe() {
        DenyCache cache = new DenyCache(10);
        cache.deny("a", 0, 1_000);
        cache.deny("b", 0, 1_000);
        assertThat(cache.check("a", 10).deniedMillis()).isEqualTo(990);
        // b's denial has run out: the first caller probes, the next one waits for that probe's answer.
        assertThat(cache.check("b", 2_000).probe()).isTrue();
        CompletableFuture<Void> waiting = cache.check("b", 2_000).pending();
        assertThat(waiting).isNotNull().isNotDone();

        cache.clear();

        assertThat(waiting).isDone();
        assertThat(cache.check("a", 20)).isEqualTo(new DenyCache.Check(0, null, false));
        assertThat(cache.check("b", 2_001)).isEqualTo(new DenyCache.Check(0, null, false));
        assertThat(cache.size()).isZero();
        // The probe's own answer, arriving after the clear, changes nothing.
        cache.settle("b", 2_002);
        assertThat(cache.size()).isZero();
    }
}
