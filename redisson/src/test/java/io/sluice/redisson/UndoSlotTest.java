package io.sluice.redisson;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code undo-slot.lua} on real Redis, on a hand-moved clock: a leaky bucket's slot goes back by the end its answer
 * carried while it is the last one scheduled, exactly (the next request gets the slot it would have had), and stays
 * taken once a later slot is scheduled after it (issue 21, seed 859683050).
 */
class UndoSlotTest {
    /** 6/1s: a slot every 166.67 ms, two more may wait for theirs. */
    private static final long LIMIT = 6;
    private static final long QUEUE = 2;

    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();

    private final MutableClock clock = MutableClock.startingNow();
    private RedissonBackend backend;
    private RateRequest request;

    @BeforeEach
    void start() {
        backend = RedissonBackend.onCallerClock(redis.client(), clock, Duration.ofSeconds(10));
        request = RateRequest.of(Algorithm.LEAKY_BUCKET, "undo-slot-" + UUID.randomUUID(), LIMIT, Duration.ofSeconds(1))
                .withQueue(QUEUE);
    }

    @Test
    void theLastSlotGoesBackAsIfItsRequestHadNeverCome() {
        RateRequest control = request.withKey(request.key() + "-control");
        take(request);
        take(control);
        RateOutcome second = take(request);
        assertThat(second.entry()).as("an admitted slot names its end").isNotNull();
        assertThat(second.delayMillis()).isPositive();

        backend.refund(request, second.entry()).toCompletableFuture().join();

        // The next takes exactly the second's slot, and from there the bucket is the one that never saw the second.
        assertThat(take(request)).isEqualTo(second);
        take(control);
        RateOutcome next = take(request);
        assertThat(next).usingRecursiveComparison().ignoringFields("entry").isEqualTo(take(control));
    }

    @Test
    void aSlotWithALaterOneAfterItStaysTaken() {
        RateRequest control = request.withKey(request.key() + "-control");
        RateOutcome first = take(request);
        take(request);
        take(control);
        take(control);

        backend.refund(request, first.entry()).toCompletableFuture().join();

        // The second was told its slot: the first's stays taken, as on a bucket given nothing back.
        RateOutcome third = take(request);
        RateOutcome thirdOfControl = take(control);
        assertThat(third.remaining()).isEqualTo(thirdOfControl.remaining());
        assertThat(third.delayMillis()).isEqualTo(thirdOfControl.delayMillis());
        assertThat(take(request).allowed()).isEqualTo(take(control).allowed()).isFalse();
    }

    @Test
    void aSlotGoesBackOnce() {
        RateOutcome first = take(request);
        RateOutcome second = take(request);
        backend.refund(request, second.entry()).toCompletableFuture().join();
        backend.refund(request, second.entry()).toCompletableFuture().join();

        // The first's slot is not given back by the second's entry: the next takes the second's slot.
        assertThat(take(request)).isEqualTo(second);
        assertThat(first.entry()).isNotEqualTo(second.entry());
    }

    @Test
    void anIdleBucketsSlotGoesBackToFree() {
        RateOutcome only = take(request);
        assertThat(only.delayMillis()).isZero();
        clock.advance(Duration.ofMillis(50));
        backend.refund(request, only.entry()).toCompletableFuture().join();

        // As a bucket never used: no wait, the whole queue free.
        RateOutcome next = take(request);
        RateOutcome fresh = take(request.withKey(request.key() + "-fresh"));
        assertThat(next.delayMillis()).isZero();
        assertThat(next.remaining()).isEqualTo(fresh.remaining());
    }

    private RateOutcome take(RateRequest r) {
        return backend.tryConsume(r).toCompletableFuture().join();
    }
}
