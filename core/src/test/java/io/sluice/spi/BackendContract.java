package io.sluice.spi;

import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The semantics every {@link LimiterBackend} must have, run against each one with its real store.
 * Time moves only by the test's clock.
 */
public abstract class BackendContract {
    protected MutableClock clock;
    protected LimiterBackend backend;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /** A backend over {@code clock}; closed by the subclass. */
    protected abstract LimiterBackend backend(MutableClock clock);

    @BeforeEach
    void setUpBackend() {
        clock = MutableClock.startingNow();
        backend = backend(clock);
    }

    protected String key(String name) {
        return "contract-" + run + ":" + name;
    }

    protected RateOutcome consume(RateRequest r) {
        return backend.tryConsume(r).toCompletableFuture().join();
    }

    protected LeaseOutcome acquire(LeaseRequest r) {
        return backend.tryAcquire(r).toCompletableFuture().join();
    }

    @Test
    void rateAdmitsExactlyTheLimitWithRemainingCountingDown() {
        RateRequest r = new RateRequest(key("exact"), 5, Duration.ofMinutes(1), 1);
        for (int i = 4; i >= 0; i--) {
            RateOutcome o = consume(r);
            assertThat(o.allowed()).isTrue();
            assertThat(o.remaining()).isEqualTo(i);
            assertThat(o.retryAfterMillis()).isZero();
            assertThat(o.resetMillis()).isEqualTo(60_000);
        }
        RateOutcome rejected = consume(r);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.remaining()).isZero();
    }

    @Test
    void retryAfterAndResetCountDownToTheOldestPermit() {
        RateRequest r = new RateRequest(key("retry"), 2, Duration.ofSeconds(10), 1);
        consume(r);
        clock.advance(Duration.ofSeconds(3));
        consume(r);
        clock.advance(Duration.ofSeconds(2));
        RateOutcome rejected = consume(r);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfterMillis()).isEqualTo(5_000);
        assertThat(rejected.resetMillis()).isEqualTo(5_000);
        clock.advance(Duration.ofSeconds(5));
        RateOutcome afterOldestLeft = consume(r);
        assertThat(afterOldestLeft.allowed()).isTrue();
        assertThat(afterOldestLeft.remaining()).isZero();
        // Left in the window: the permit taken at t=3s, which frees at t=13s.
        assertThat(afterOldestLeft.resetMillis()).isEqualTo(3_000);
    }

    @Test
    void theWindowSlides() {
        RateRequest r = new RateRequest(key("slide"), 3, Duration.ofSeconds(1), 1);
        for (int i = 0; i < 3; i++) assertThat(consume(r).allowed()).isTrue();
        assertThat(consume(r).allowed()).isFalse();
        clock.advance(Duration.ofMillis(999));
        assertThat(consume(r).allowed()).isFalse();
        clock.advance(Duration.ofMillis(1));
        RateOutcome o = consume(r);
        assertThat(o.allowed()).isTrue();
        assertThat(o.remaining()).isEqualTo(2);
    }

    @Test
    void keysAreIndependent() {
        RateRequest a = new RateRequest(key("a"), 1, Duration.ofMinutes(1), 1);
        RateRequest b = new RateRequest(key("b"), 1, Duration.ofMinutes(1), 1);
        assertThat(consume(a).allowed()).isTrue();
        assertThat(consume(a).allowed()).isFalse();
        assertThat(consume(b).allowed()).isTrue();
    }

    @Test
    void aCostTakesSeveralPermitsAndWaitsForEnoughToFree() {
        RateRequest one = new RateRequest(key("cost"), 4, Duration.ofSeconds(10), 1);
        RateRequest three = new RateRequest(key("cost"), 4, Duration.ofSeconds(10), 3);
        consume(one);
        clock.advance(Duration.ofSeconds(1));
        consume(one);
        clock.advance(Duration.ofSeconds(1));
        assertThat(consume(three).allowed()).isFalse();
        RateOutcome o = consume(one);
        assertThat(o.allowed()).isTrue();
        assertThat(o.remaining()).isEqualTo(1);
        RateOutcome rejected = consume(three);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.remaining()).isEqualTo(1);
        // 3 wanted, 1 free: the permits taken at t=0s and t=1s must leave; the second leaves at t=11s, 9s from now.
        assertThat(rejected.retryAfterMillis()).isEqualTo(9_000);
        clock.advance(Duration.ofSeconds(9));
        assertThat(consume(three).allowed()).isTrue();
    }

    @Test
    void parallelCallersAreAdmittedExactlyTheLimit() throws Exception {
        RateRequest r = new RateRequest(key("parallel"), 37, Duration.ofMinutes(5), 1);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Callable<Boolean>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) calls.add(() -> consume(r).allowed());
            int admitted = 0;
            for (Future<Boolean> f : pool.invokeAll(calls)) if (f.get()) admitted++;
            assertThat(admitted).isEqualTo(37);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrencyGrantsExactlyTheLimitAndReleasesOnce() {
        LeaseRequest r = new LeaseRequest(key("sem"), 2, Duration.ofSeconds(30), Duration.ZERO);
        LeaseOutcome first = acquire(r);
        LeaseOutcome second = acquire(r);
        assertThat(first.acquired()).isTrue();
        assertThat(first.available()).isEqualTo(1);
        assertThat(second.acquired()).isTrue();
        assertThat(second.available()).isZero();
        assertThat(acquire(r).acquired()).isFalse();
        assertThat(backend.available(r).toCompletableFuture().join()).isZero();

        assertThat(backend.release(r, first.permitId()).toCompletableFuture().join()).isTrue();
        assertThat(backend.release(r, first.permitId()).toCompletableFuture().join()).isFalse();
        assertThat(backend.available(r).toCompletableFuture().join()).isEqualTo(1);
        assertThat(acquire(r).acquired()).isTrue();
        assertThat(acquire(r).acquired()).isFalse();
    }

    @Test
    void anUnrenewedLeaseExpiresAndARenewedOneDoesNot() {
        LeaseRequest r = new LeaseRequest(key("lease"), 2, Duration.ofSeconds(10), Duration.ZERO);
        LeaseOutcome renewed = acquire(r);
        LeaseOutcome abandoned = acquire(r);
        clock.advance(Duration.ofSeconds(6));
        assertThat(backend.renew(r, renewed.permitId()).toCompletableFuture().join()).isTrue();
        clock.advance(Duration.ofSeconds(6));
        // The abandoned permit (a dead server's) came back; the renewed one is still held.
        LeaseOutcome again = acquire(r);
        assertThat(again.acquired()).isTrue();
        assertThat(again.available()).isZero();
        assertThat(acquire(r).acquired()).isFalse();
        assertThat(backend.renew(r, abandoned.permitId()).toCompletableFuture().join()).isFalse();
        assertThat(backend.release(r, abandoned.permitId()).toCompletableFuture().join()).isFalse();
        assertThat(backend.available(r).toCompletableFuture().join()).isZero();
    }

    @Test
    void parallelAcquirersNeverExceedTheLimit() throws Exception {
        LeaseRequest r = new LeaseRequest(key("sem-parallel"), 5, Duration.ofSeconds(30), Duration.ZERO);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Callable<LeaseOutcome>> calls = new ArrayList<>();
            for (int i = 0; i < 100; i++) calls.add(() -> acquire(r));
            List<String> granted = new ArrayList<>();
            for (Future<LeaseOutcome> f : pool.invokeAll(calls)) if (f.get().acquired()) granted.add(f.get().permitId());
            assertThat(granted).hasSize(5).doesNotHaveDuplicates();
            for (String id : granted) assertThat(backend.release(r, id).toCompletableFuture().join()).isTrue();
            assertThat(backend.available(r).toCompletableFuture().join()).isEqualTo(5);
        } finally {
            pool.shutdownNow();
        }
    }
}
