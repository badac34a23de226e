package io.sluice.redisson;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class CallExpiryTest {
    private static final long REDIS_MILLIS = 1_000_000L;
    private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(1_200);
    private final AtomicInteger samples = new AtomicInteger();
    private final CallExpiry expiry = new CallExpiry(() -> {
        samples.incrementAndGet();
        return CompletableFuture.completedFuture(REDIS_MILLIS);
    }, CLIENT_TIMEOUT);

    @Test
    void aCallExpiresTheClientsTimeoutLessTheLeadAfterItIsSentInRedisTime() {
        assertThat(expiry.known()).isFalse();
        expiry.prime();
        assertThat(expiry.known()).isTrue();
        long at = Long.parseLong(expiry.argument());
        // Redis's time at the sample, moved on by this JVM's clock since: never earlier than the timeout less the lead.
        assertThat(at).isGreaterThanOrEqualTo(REDIS_MILLIS + CLIENT_TIMEOUT.minus(CallExpiry.LEAD).toMillis());
        assertThat(samples.get()).as("one sample until the next is due").isEqualTo(1);
    }

    @Test
    void aRefusalBeforeTheExpiryByThisClockDropsTheEstimate() {
        expiry.prime();
        expiry.refused(System.nanoTime() - TimeUnit.SECONDS.toNanos(5));
        assertThat(expiry.known()).as("a call refused after its client's timeout: the estimate holds").isTrue();
        expiry.refused(System.nanoTime());
        assertThat(expiry.known()).isFalse();
        assertThat(expiry.argument()).isEqualTo(CallExpiry.NONE);
        assertThat(samples.get()).as("no sample again for a while").isEqualTo(1);
    }

    @Test
    void withoutASampleCallsGoWithoutAnExpiry() {
        CallExpiry down = new CallExpiry(() -> CompletableFuture.failedFuture(new IllegalStateException("down")), CLIENT_TIMEOUT);
        assertThat(down.argument()).isEqualTo(CallExpiry.NONE);
        assertThat(down.known()).isFalse();
    }
}
