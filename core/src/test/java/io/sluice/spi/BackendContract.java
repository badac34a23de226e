package io.sluice.spi;

import io.sluice.testing.Decided;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.sluice.spi.Algorithm.FIXED_WINDOW;
import static io.sluice.spi.Algorithm.LEAKY_BUCKET;
import static io.sluice.spi.Algorithm.SLIDING_LOG;
import static io.sluice.spi.Algorithm.SLIDING_WINDOW;
import static io.sluice.spi.Algorithm.TOKEN_BUCKET;
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

    /** Another permit of {@code r}'s semaphore: each call under a new id (one id is one permit). */
    protected LeaseOutcome acquire(LeaseRequest r) {
        return backend.tryAcquire(r.underNewId()).toCompletableFuture().join();
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

    /** The engine chooses the id: the permit granted is the request's, and asking again under it takes nothing more. */
    @Test
    void aPermitIsTheRequestsOwnIdAndIsTakenOnce() {
        LeaseRequest r = new LeaseRequest(key("sem-id"), 2, Duration.ofSeconds(30), Duration.ZERO);
        LeaseOutcome first = backend.tryAcquire(r).toCompletableFuture().join();
        assertThat(first.permitId()).isEqualTo(r.permitId());
        assertThat(first.available()).isEqualTo(1);
        LeaseOutcome again = backend.tryAcquire(r).toCompletableFuture().join();
        assertThat(again.permitId()).isEqualTo(r.permitId());
        assertThat(backend.available(r).toCompletableFuture().join()).isEqualTo(1);
        assertThat(backend.release(r, r.permitId()).toCompletableFuture().join()).isTrue();
        assertThat(backend.available(r).toCompletableFuture().join()).isEqualTo(2);
    }

    /**
     * An acquire the engine gave up on may reach the store after the release that undoes it (a late script): the
     * release leaves a tombstone, and the late acquire takes nothing, while other permits are taken as usual. After a
     * lease the tombstone is gone (an acquire sent then would have expired by itself).
     */
    @Test
    void aPermitReleasedBeforeItsAcquireArrivesIsNeverTaken() {
        Duration lease = Duration.ofSeconds(30);
        LeaseRequest late = new LeaseRequest(key("sem-late"), 2, lease, Duration.ZERO);
        assertThat(backend.release(late, late.permitId()).toCompletableFuture().join()).isFalse();
        LeaseOutcome arrived = backend.tryAcquire(late).toCompletableFuture().join();
        assertThat(arrived.acquired()).isFalse();
        assertThat(backend.available(late).toCompletableFuture().join()).isEqualTo(2);
        LeaseOutcome other = acquire(late);
        LeaseOutcome another = acquire(late);
        assertThat(List.of(other.acquired(), another.acquired())).containsOnly(true);
        assertThat(backend.release(late, late.permitId()).toCompletableFuture().join()).isFalse();
        assertThat(backend.release(late, other.permitId()).toCompletableFuture().join()).isTrue();
        assertThat(backend.release(late, another.permitId()).toCompletableFuture().join()).isTrue();
        clock.advance(lease.plusSeconds(1));
        assertThat(backend.tryAcquire(late).toCompletableFuture().join().acquired()).isTrue();
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

    // ------------------------------------------------------------------ every algorithm (issue 13)

    private RateRequest request(Algorithm a, String name, long limit, Duration period) {
        return RateRequest.of(a, key(name + "-" + a.id()), limit, period);
    }

    private RateOutcome consume(RateRequest r, long cost) {
        return consume(r.withCost(cost));
    }

    /** Moves the clock to the start of the next window of {@code period}, where fixed windows are aligned. */
    protected void alignTo(Duration period) {
        long p = period.toMillis();
        clock.advance(Duration.ofMillis(p - Math.floorMod(clock.millis(), p)));
    }

    private static RateOutcome outcome(boolean allowed, long remaining, long reset, long retry) {
        return new RateOutcome(allowed, remaining, reset, retry, 0, false);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void eachAlgorithmAdmitsItsCapacityThenRejectsWithTheTimeToTheNextPermit(Algorithm a) {
        Duration period = Duration.ofSeconds(10);
        alignTo(period);
        RateRequest r = request(a, "capacity", 5, period).withQueue(a == LEAKY_BUCKET ? 4 : 0);
        List<RateOutcome> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) answers.add(Decided.of(consume(r)));
        List<RateOutcome> expected = switch (a) {
            // One token every 2 s; a full bucket of 5.
            case TOKEN_BUCKET -> List.of(outcome(true, 4, 2000, 0), outcome(true, 3, 2000, 0), outcome(true, 2, 2000, 0),
                    outcome(true, 1, 2000, 0), outcome(true, 0, 2000, 0), outcome(false, 0, 2000, 2000));
            // One slot every 2 s: the first now, four more wait for theirs, the sixth finds the queue full.
            case LEAKY_BUCKET -> List.of(new RateOutcome(true, 4, 2000, 0, 0, false), new RateOutcome(true, 3, 2000, 0, 2000, false),
                    new RateOutcome(true, 2, 2000, 0, 4000, false), new RateOutcome(true, 1, 2000, 0, 6000, false),
                    new RateOutcome(true, 0, 2000, 0, 8000, false), new RateOutcome(false, 0, 2000, 2000, 0, false));
            case FIXED_WINDOW, SLIDING_LOG -> List.of(outcome(true, 4, 10_000, 0), outcome(true, 3, 10_000, 0),
                    outcome(true, 2, 10_000, 0), outcome(true, 1, 10_000, 0), outcome(true, 0, 10_000, 0),
                    outcome(false, 0, 10_000, 10_000));
            // The permits of this window weigh on into the next: with n taken, one more than the remaining 5 - n fits
            // once n x (1 - e/10s) <= n - 1 in the next window, at e = 10s / n (the sixth: 5 x 0.8 + 1 = 5 at 2 s).
            case SLIDING_WINDOW -> List.of(outcome(true, 4, 20_000, 0), outcome(true, 3, 15_000, 0), outcome(true, 2, 13_334, 0),
                    outcome(true, 1, 12_500, 0), outcome(true, 0, 12_000, 0), outcome(false, 0, 12_000, 12_000));
        };
        assertThat(answers).containsExactlyElementsOf(expected);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "LEAKY_BUCKET", mode = EnumSource.Mode.EXCLUDE)
    void aRejectionConsumesNothing(Algorithm a) {
        RateRequest r = request(a, "no-consume", 5, Duration.ofMinutes(1));
        for (int i = 0; i < 4; i++) assertThat(consume(r).allowed()).isTrue();
        RateOutcome tooMuch = consume(r, 3);
        assertThat(tooMuch.allowed()).isFalse();
        assertThat(tooMuch.remaining()).isEqualTo(1);
        RateOutcome last = consume(r);
        assertThat(last.allowed()).isTrue();
        assertThat(last.remaining()).isZero();
        assertThat(consume(r).allowed()).isFalse();
    }

    @Test
    void aLeakyBucketWithoutQueueAdmitsOnlyOnPaceAndARejectionTakesNoSlot() {
        RateRequest r = request(LEAKY_BUCKET, "pace", 10, Duration.ofSeconds(1));
        assertThat(Decided.of(consume(r))).isEqualTo(new RateOutcome(true, 0, 100, 0, 0, false));
        clock.advance(Duration.ofMillis(40));
        assertThat(consume(r)).isEqualTo(new RateOutcome(false, 0, 60, 60, 0, false));
        clock.advance(Duration.ofMillis(59));
        assertThat(consume(r).allowed()).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(Decided.of(consume(r))).isEqualTo(new RateOutcome(true, 0, 100, 0, 0, false));
    }

    @Test
    void aLeakyBucketGivesACostlyRequestSeveralSlots() {
        RateRequest r = request(LEAKY_BUCKET, "pace-cost", 10, Duration.ofSeconds(1)).withQueue(2);
        assertThat(Decided.of(consume(r, 3))).isEqualTo(new RateOutcome(true, 0, 100, 0, 0, false));
        // The next slot is 300 ms away, beyond a queue of 2 x 100 ms: the first free place opens in 100 ms.
        assertThat(consume(r)).isEqualTo(new RateOutcome(false, 0, 100, 100, 0, false));
        clock.advance(Duration.ofMillis(100));
        assertThat(Decided.of(consume(r))).isEqualTo(new RateOutcome(true, 0, 100, 0, 200, false));
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_LOG", "TOKEN_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW"})
    void aCostAboveTheCapacityNeverFitsAndTakesNothing(Algorithm a) {
        RateRequest r = request(a, "never", 5, Duration.ofMinutes(1));
        RateOutcome o = consume(r, 6);
        assertThat(o.neverFits()).isTrue();
        assertThat(o.retryAfterMillis()).isEqualTo(RateOutcome.NEVER_FITS);
        assertThat(o.remaining()).isEqualTo(5);
        assertThat(consume(r, 5).allowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "LEAKY_BUCKET", mode = EnumSource.Mode.EXCLUDE)
    void softThrottlingAdmitsTheOverageWhileAdvertisingTheNominalLimit(Algorithm a) {
        alignTo(Duration.ofMinutes(1));
        RateRequest r = request(a, "soft", 10, Duration.ofMinutes(1)).withEffectiveLimit(12);
        for (int i = 1; i <= 12; i++) {
            RateOutcome o = consume(r);
            assertThat(o.allowed()).as("request %d", i).isTrue();
            assertThat(o.remaining()).as("request %d", i).isEqualTo(Math.max(0, 10 - i));
            assertThat(o.overLimit()).as("request %d", i).isEqualTo(i > 10);
        }
        RateOutcome rejected = consume(r);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.remaining()).isZero();
        assertThat(rejected.overLimit()).isFalse();
    }

    /** The backend's refunds: the tests of a capability run on the backends that have it. */
    private Refunding refunding() {
        Assumptions.assumeTrue(backend instanceof Refunding, "the backend cannot refund");
        return (Refunding) backend;
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "LEAKY_BUCKET", mode = EnumSource.Mode.EXCLUDE)
    void aRefundHandsThePermitsBack(Algorithm a) {
        RateRequest r = request(a, "refund", 3, Duration.ofMinutes(1)).withEffectiveLimit(4);
        for (int i = 0; i < 4; i++) assertThat(consume(r).allowed()).isTrue();
        assertThat(consume(r).allowed()).isFalse();
        refunding().refund(r).toCompletableFuture().join();
        RateOutcome again = consume(r);
        assertThat(again.allowed()).isTrue();
        assertThat(again.overLimit()).isTrue();
        assertThat(consume(r).allowed()).isFalse();
    }

    /**
     * Issue 21's late give-back: rate=3/10s, A at 0 s, B at 5 s, then A's refund by its entry. A's own entry goes, B's
     * stays: at 10.5 s (A's entry would have left anyway) exactly 2 more are admitted, not 3.
     */
    @Test
    void aLateRefundByEntryGivesBackTheRequestsOwnPermitsNotALaterOnes() {
        RateRequest r = new RateRequest(key("late-refund"), 3, Duration.ofSeconds(10), 1);
        RateOutcome a = consume(r);
        assertThat(a.allowed()).isTrue();
        assertThat(a.entry()).as("an admitted log decision names its entry").isInstanceOf(Entry.LogEntry.class);
        clock.advance(Duration.ofSeconds(5));
        RateOutcome b = consume(r);
        assertThat(b.remaining()).isEqualTo(1);
        assertThat(b.entry()).isNotNull().isNotEqualTo(a.entry());
        refunding().refund(r, a.entry()).toCompletableFuture().join();
        clock.advance(Duration.ofMillis(5500));
        RateOutcome first = consume(r);
        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).as("B's permit still counts until 15 s").isEqualTo(1);
        assertThat(consume(r).remaining()).isZero();
        RateOutcome rejected = consume(r);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfterMillis()).as("B's permit frees at 15 s").isEqualTo(4500);
    }

    /**
     * A log's stock of 3 taken at 0 s for a hold of 1 s, used at 0.1 s, 0.5 s and 0.8 s and handed back at 1 s with those
     * uses; then the permit used at 0.1 s is given back by its use ({@code Prefetch.Receipt.use}). At
     * 10.05 s the uses of 0.5 s and 0.8 s still count: exactly 1 admitted. With the first two uses merged at 0.5 s (as a
     * stock keeping too many use times does), the give-back comes off the merged use: the same.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStockUseGivenBackAfterItsHandBackComesOffThatUse(boolean merged) {
        Assumptions.assumeTrue(backend instanceof Prefetching, "the backend cannot prefetch");
        RateRequest r = new RateRequest(key("use-refund-" + merged), 3, Duration.ofSeconds(10), 1);
        Prefetch p = ((Prefetching) backend).prefetch(r, 3, Duration.ofSeconds(1), List.of()).toCompletableFuture().join();
        assertThat(p.taken()).isEqualTo(3);
        clock.advance(Duration.ofSeconds(1));
        List<PrefetchUse> uses = merged ? List.of(new PrefetchUse(2, 500), new PrefetchUse(1, 200))
                : List.of(new PrefetchUse(1, 900), new PrefetchUse(1, 500), new PrefetchUse(1, 200));
        ((Prefetching) backend).returnPrefetched(p, 0, uses).toCompletableFuture().join();
        refunding().refund(r, p.receipt().use(900)).toCompletableFuture().join();
        clock.advance(Duration.ofMillis(9_050));
        RateOutcome first = consume(r);
        assertThat(first.allowed()).as("the use of 0.1 s was given back").isTrue();
        assertThat(first.remaining()).as("those of 0.5 s and 0.8 s count until 10.5 s and 10.8 s").isZero();
        RateOutcome rejected = consume(r);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfterMillis()).isEqualTo(450);
    }

    /** A refund whose entry has left the window gives nothing back: its permits are free already, never twice. */
    @Test
    void aRefundOfAnEntryThatLeftTheWindowGivesNothingBack() {
        RateRequest r = new RateRequest(key("left-refund"), 3, Duration.ofSeconds(10), 1);
        RateOutcome a = consume(r);
        clock.advance(Duration.ofSeconds(11));
        for (int i = 2; i >= 0; i--) assertThat(consume(r).remaining()).isEqualTo(i);
        refunding().refund(r, a.entry()).toCompletableFuture().join();
        assertThat(consume(r).allowed()).isFalse();
    }

    /**
     * A run of identical requests decided in one call (a hot key's burst, coalesced) gives each admitted request an
     * entry of its own, and a refund by one of them frees exactly that one.
     */
    @Test
    void eachDecisionOfABatchHasAnEntryOfItsOwn() {
        Assumptions.assumeTrue(backend instanceof Batching, "the backend decides one request a call");
        RateRequest r = new RateRequest(key("batch-refund"), 3, Duration.ofSeconds(10), 1);
        consume(r);
        clock.advance(Duration.ofSeconds(5));
        List<RateOutcome> burst = ((Batching) backend).tryConsumeAll(List.of(r, r, r)).toCompletableFuture().join();
        assertThat(burst).extracting(RateOutcome::allowed).containsExactly(true, true, false);
        assertThat(burst.get(0).entry()).isNotNull().isNotEqualTo(burst.get(1).entry());
        assertThat(burst.get(2).entry()).as("a rejection takes nothing").isNull();
        refunding().refund(r, burst.get(0).entry()).toCompletableFuture().join();
        // The first request's entry (at 0 s) leaves at 10 s; the burst's remaining one counts until 15 s.
        clock.advance(Duration.ofMillis(5500));
        assertThat(consume(r).remaining()).isEqualTo(1);
        assertThat(consume(r).remaining()).isZero();
        assertThat(consume(r).allowed()).isFalse();
    }

    /**
     * Issue 21's late give-back of a window counter: 3/10s, A at 9 s (window 0), B at 10 s (window 1), then A's refund
     * by the window its answer named. Window 0 is over: nothing comes off window 1's counter, which admits exactly 2
     * more (the refund credits nothing); a refund by B's window frees B's permit.
     */
    @Test
    void aFixedWindowsRefundByEntryComesOffItsOwnWindowOnly() {
        Duration period = Duration.ofSeconds(10);
        alignTo(period);
        RateRequest r = request(FIXED_WINDOW, "window-refund", 3, period);
        clock.advance(Duration.ofSeconds(9));
        RateOutcome a = consume(r);
        assertThat(a.entry()).as("an admitted window decision names its window").isInstanceOf(Entry.WindowIndex.class);
        clock.advance(Duration.ofSeconds(1));
        RateOutcome b = consume(r);
        assertThat(b.entry()).isNotNull().isNotEqualTo(a.entry());
        assertThat(refunding().refundCredited(r, a.entry()).toCompletableFuture().join()).as("window 0 is over").isZero();
        assertThat(consume(r).remaining()).isEqualTo(1);
        assertThat(consume(r).remaining()).isZero();
        assertThat(consume(r).allowed()).isFalse();
        assertThat(refunding().refundCredited(r, b.entry()).toCompletableFuture().join()).isEqualTo(1);
        assertThat(consume(r).remaining()).isZero();
        assertThat(consume(r).allowed()).isFalse();
    }

    /**
     * The same for a sliding window, 3/10s: A at 15 s (window 1), B, C and D at 20 s (window 2), then A's refund by its
     * window comes off window 1's counter, which still weighs in; at 30 s window 2 is the
     * previous window at full weight, its 3 untouched: rejected. Two windows late, a refund comes off nothing.
     */
    @Test
    void aSlidingWindowsRefundByEntryComesOffThePreviousWindowItWasCountedIn() {
        Duration period = Duration.ofSeconds(10);
        alignTo(period);
        RateRequest r = request(SLIDING_WINDOW, "sliding-refund", 3, period);
        clock.advance(Duration.ofSeconds(15));
        RateOutcome a = consume(r);
        clock.advance(Duration.ofSeconds(5));
        assertThat(consume(r).remaining()).isEqualTo(1);
        assertThat(refunding().refundCredited(r, a.entry()).toCompletableFuture().join()).isEqualTo(1);
        assertThat(consume(r).remaining()).as("A no longer weighs in").isEqualTo(1);
        assertThat(consume(r).remaining()).isZero();
        clock.advance(Duration.ofSeconds(10));
        assertThat(consume(r).allowed()).as("B, C and D of the window before, at full weight").isFalse();
        assertThat(refunding().refundCredited(r, a.entry()).toCompletableFuture().join()).as("window 1 no longer weighs in")
                .isZero();
        assertThat(consume(r).allowed()).isFalse();
    }

    /**
     * A window counter's stock handed back once the window it was taken in counts no more (a fixed window's next window,
     * a sliding window's two windows later) credits nothing: the window of the hand-back never counted it, and admits
     * exactly its limit (3 of {@code 3/10s}).
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW"})
    void aWindowsStockHandedBackAfterItsWindowCreditsNoLaterWindow(Algorithm algorithm) {
        Assumptions.assumeTrue(backend instanceof Prefetching, "a backend that prefetches");
        Prefetching prefetching = (Prefetching) backend;
        Duration period = Duration.ofSeconds(10);
        alignTo(period);
        RateRequest r = request(algorithm, "late-stock", 3, period);
        clock.advance(Duration.ofSeconds(9));
        Prefetch stock = prefetching.prefetch(r, 2, Duration.ofSeconds(30), List.of()).toCompletableFuture().join();
        assertThat(stock.taken()).isEqualTo(2);
        clock.advance(algorithm == FIXED_WINDOW ? Duration.ofSeconds(1) : Duration.ofSeconds(11));
        RateOutcome first = consume(r);
        assertThat(first.allowed()).isTrue();
        prefetching.returnPrefetched(stock, 2, List.of()).toCompletableFuture().join();
        assertThat(consume(r).remaining()).as("nothing credited to the window of the hand-back").isEqualTo(first.remaining() - 1);
        assertThat(consume(r).remaining()).isZero();
        assertThat(consume(r).allowed()).isFalse();
    }

    @Test
    void aLeakyBucketCannotRefund() {
        assertThat(refunding().refund(request(LEAKY_BUCKET, "no-refund", 3, Duration.ofMinutes(1))).toCompletableFuture())
                .isCompletedExceptionally();
    }

    @Test
    void fixedWindowsAreAlignedToMultiplesOfThePeriodSoABurstMayStraddleTheBoundary() {
        Duration period = Duration.ofMinutes(1);
        alignTo(period);
        clock.advance(period.minusMillis(1));
        RateRequest r = request(FIXED_WINDOW, "aligned", 5, period);
        for (int i = 0; i < 5; i++) assertThat(consume(r).resetMillis()).isEqualTo(1);
        assertThat(consume(r)).isEqualTo(outcome(false, 0, 1, 1));
        clock.advance(Duration.ofMillis(1));
        for (int i = 4; i >= 0; i--) assertThat(Decided.of(consume(r))).isEqualTo(outcome(true, i, 60_000, 0));
    }

    @Test
    void theSlidingWindowWeighsThePreviousWindowByItsOverlap() {
        Duration period = Duration.ofMinutes(1);
        alignTo(period);
        RateRequest r = request(SLIDING_WINDOW, "weighted", 10, period);
        for (int i = 0; i < 9; i++) assertThat(consume(r).allowed()).isTrue();
        alignTo(period);
        clock.advance(Duration.ofSeconds(15));
        // 9 x 0.75 = 6.75: three more fit (9.75), a fourth would make 10.75.
        assertThat(consume(r).remaining()).isEqualTo(2);
        assertThat(consume(r).remaining()).isEqualTo(1);
        assertThat(consume(r).remaining()).isEqualTo(0);
        RateOutcome rejected = consume(r);
        assertThat(rejected.allowed()).isFalse();
        // 9 x w + 3 + 1 <= 10 once w <= 2/3: at 20 s into the window, 5 s from now.
        assertThat(rejected.retryAfterMillis()).isEqualTo(5_000);
        clock.advance(Duration.ofSeconds(5));
        assertThat(consume(r).allowed()).isTrue();
    }

    @Test
    void theContractsSlidingWindowExampleIsRejected() {
        Duration period = Duration.ofMinutes(1);
        alignTo(period);
        RateRequest r = request(SLIDING_WINDOW, "example", 10, period);
        for (int i = 0; i < 9; i++) consume(r);
        alignTo(period);
        // Five in the current window (taken under a higher limit: a reload keeps the counts), a quarter in.
        for (int i = 0; i < 5; i++) assertThat(consume(new RateRequest(r.key(), SLIDING_WINDOW, 20, period, 1, 20, 0, 20)).allowed()).isTrue();
        clock.advance(Duration.ofSeconds(15));
        RateOutcome o = consume(r);
        assertThat(o.allowed()).isFalse(); // 9 x 0.75 + 5 = 11.75 > 10
        assertThat(o.remaining()).isZero();
    }

    @Test
    void aTokenBucketRefillsContinuously() {
        RateRequest r = request(TOKEN_BUCKET, "refill", 10, Duration.ofHours(1));
        for (int i = 0; i < 10; i++) assertThat(consume(r).allowed()).isTrue();
        RateOutcome empty = consume(r);
        assertThat(empty).isEqualTo(outcome(false, 0, 360_000, 360_000));
        clock.advance(Duration.ofMinutes(6));
        assertThat(consume(r)).isEqualTo(outcome(true, 0, 360_000, 0));
        assertThat(consume(r).allowed()).isFalse();
        clock.advance(Duration.ofMinutes(18));
        assertThat(consume(r, 3)).isEqualTo(outcome(true, 0, 360_000, 0));
    }

    @Test
    void aTokenBucketBurstIsItsCapacityNotItsRate() {
        RateRequest r = request(TOKEN_BUCKET, "burst", 10, Duration.ofSeconds(10)).withBurst(3);
        for (int i = 2; i >= 0; i--) assertThat(consume(r).remaining()).isEqualTo(i);
        assertThat(consume(r)).isEqualTo(outcome(false, 0, 1000, 1000));
        clock.advance(Duration.ofSeconds(30));
        assertThat(consume(r).remaining()).isEqualTo(2); // full again at 3, never more
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_LOG", "TOKEN_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW"})
    void aChangedLimitKeepsTheUsage(Algorithm a) {
        // The contract's reload example: a key that used 8 of 10/1h has 12 left under 20/1h and none under 5/1h.
        Duration hour = Duration.ofHours(1);
        alignTo(hour);
        RateRequest before = request(a, "reload", 10, hour);
        for (int i = 0; i < 8; i++) consume(before);
        RateOutcome raised = consume(new RateRequest(before.key(), a, 20, hour, 1, 20, 0, 20));
        assertThat(raised.allowed()).isTrue();
        assertThat(raised.remaining()).isEqualTo(11);
        RateRequest other = request(a, "reload-down", 10, hour);
        for (int i = 0; i < 8; i++) consume(other);
        RateOutcome lowered = consume(new RateRequest(other.key(), a, 5, hour, 1, 5, 0, 5));
        assertThat(lowered.allowed()).isFalse();
        assertThat(lowered.remaining()).isZero();
        // Back to the old limit: the usage was kept all along, nothing was lost or added by the detour.
        assertThat(consume(other).remaining()).isEqualTo(1);
    }

    @Test
    void aSlidingLogUnderALoweredLimitAdmitsAgainOnlyOnceItsUsageIsUnderIt() {
        RateRequest before = new RateRequest(key("log-drain"), 10, Duration.ofMinutes(10), 1);
        for (int i = 0; i < 6; i++) consume(before);
        clock.advance(Duration.ofMinutes(5));
        consume(before);
        consume(before);
        RateRequest lowered = new RateRequest(before.key(), 3, Duration.ofMinutes(10), 1);
        RateOutcome denied = consume(lowered);
        assertThat(denied.allowed()).isFalse();
        // 8 used of 3: the 6 oldest must leave, 5 minutes from now.
        assertThat(denied.retryAfterMillis()).isEqualTo(Duration.ofMinutes(5).toMillis());
        clock.advance(Duration.ofMinutes(5));
        RateOutcome again = consume(lowered);
        assertThat(again.allowed()).isTrue();
        assertThat(again.remaining()).isZero();
    }

    @Test
    void aLeakyBucketKeepsItsQueuedRequestsAndTheirPaceFollowsTheChangedLimit() {
        Duration hour = Duration.ofHours(1);
        RateRequest before = RateRequest.of(LEAKY_BUCKET, key("leaky-reload"), 10, hour).withQueue(9);
        for (int i = 0; i < 8; i++) consume(before);
        // 8 requests hold the slots up to 48 minutes from now (one every 6 minutes); at 20/1h they take 24.
        RateOutcome raised = consume(new RateRequest(before.key(), LEAKY_BUCKET, 20, hour, 1, 20, 9, 20));
        assertThat(raised.allowed()).isTrue();
        assertThat(raised.delayMillis()).isEqualTo(Duration.ofMinutes(24).toMillis());
        assertThat(raised.remaining()).isEqualTo(1);
        RateRequest other = RateRequest.of(LEAKY_BUCKET, key("leaky-reload-down"), 10, hour).withQueue(9);
        for (int i = 0; i < 8; i++) consume(other);
        // At 5/1h the same 8 requests take 96 minutes, and the queue (9 waiting) still has room for one.
        RateOutcome lowered = consume(new RateRequest(other.key(), LEAKY_BUCKET, 5, hour, 1, 5, 9, 5));
        assertThat(lowered.allowed()).isTrue();
        assertThat(lowered.delayMillis()).isEqualTo(Duration.ofMinutes(96).toMillis());
    }

    @Test
    void aChangedConcurrencyLimitKeepsThePermitsHeldAndMovesTheFreeCountByTheDifference() {
        Duration lease = Duration.ofSeconds(30);
        LeaseRequest four = new LeaseRequest(key("conc-reload"), 4, lease, Duration.ZERO);
        List<String> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) held.add(acquire(four).permitId());
        LeaseRequest six = new LeaseRequest(four.key(), 6, lease, Duration.ZERO);
        assertThat(backend.available(six).toCompletableFuture().join()).isEqualTo(3);
        LeaseOutcome raised = acquire(six);
        assertThat(raised.acquired()).isTrue();
        assertThat(raised.available()).isEqualTo(2);
        held.add(raised.permitId());
        // 4 held under a limit of 2: nothing is taken from the holders, and the 2 above the limit drain first.
        LeaseRequest two = new LeaseRequest(four.key(), 2, lease, Duration.ZERO);
        assertThat(acquire(two).acquired()).isFalse();
        assertThat(backend.release(two, held.remove(0)).toCompletableFuture().join()).isTrue();
        assertThat(backend.release(two, held.remove(0)).toCompletableFuture().join()).isTrue();
        assertThat(backend.available(two).toCompletableFuture().join()).isZero();
        assertThat(acquire(two).acquired()).isFalse();
        assertThat(backend.release(two, held.remove(0)).toCompletableFuture().join()).isTrue();
        LeaseOutcome fits = acquire(two);
        assertThat(fits.acquired()).isTrue();
        assertThat(fits.available()).isZero();
        held.add(fits.permitId());
        for (String id : held) backend.release(two, id).toCompletableFuture().join();
        assertThat(backend.available(two).toCompletableFuture().join()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void parallelCallersAreAdmittedExactlyTheCapacity(Algorithm a) throws Exception {
        RateRequest r = request(a, "parallel", 37, Duration.ofMinutes(5)).withQueue(a == LEAKY_BUCKET ? 36 : 0);
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

    // ---------------------------------------------------------------- block and key control (a capability)

    /** {@code r} of {@code algorithm} at 3 per minute, with a block of 15 minutes. */
    private RateRequest blocking(Algorithm algorithm, String name) {
        return RateRequest.of(algorithm, key(name + "-" + algorithm.id()), 3, Duration.ofMinutes(1))
                .withBlock(Duration.ofMinutes(15).toMillis());
    }

    private RateUsage peek(RateRequest r) {
        return ((KeyControl) backend).peek(r).toCompletableFuture().join();
    }

    /** What a fresh key admits at one instant: a leaky bucket without a queue admits one on pace. */
    private static int atOnce(Algorithm algorithm) {
        return algorithm == LEAKY_BUCKET ? 1 : 3;
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRejectionBlocksTheKeyUntilTheBlockEnds(Algorithm algorithm) {
        Assumptions.assumeTrue(backend instanceof KeyControl, "a backend that can look keys up");
        RateRequest r = blocking(algorithm, "block");
        for (int i = 0; i < atOnce(algorithm); i++) assertThat(consume(r).allowed()).isTrue();
        assertThat(consume(r)).isEqualTo(new RateOutcome(false, 0, 900_000, 900_000));
        clock.advance(Duration.ofMinutes(10));
        assertThat(consume(r)).isEqualTo(new RateOutcome(false, 0, 300_000, 300_000));
        assertThat(peek(r)).isEqualTo(new RateUsage(0, 300_000, 300_000));
        // Another key, and the same key without a block (a refund's, a rule without block), are not blocked.
        assertThat(consume(blocking(algorithm, "other")).allowed()).isTrue();
        clock.advance(Duration.ofMinutes(5));
        assertThat(peek(r).blockedMillis()).isZero();
        assertThat(peek(r).remaining()).isEqualTo(atOnce(algorithm));
        for (int i = 0; i < atOnce(algorithm); i++) assertThat(consume(r).allowed()).isTrue();
        assertThat(consume(r).retryAfterMillis()).isEqualTo(900_000);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aPeekTakesNothingAndForgetRestoresTheLimit(Algorithm algorithm) {
        Assumptions.assumeTrue(backend instanceof KeyControl, "a backend that can look keys up");
        RateRequest r = blocking(algorithm, "peek");
        assertThat(peek(r)).isEqualTo(new RateUsage(atOnce(algorithm), 0, 0));
        for (int i = 0; i < 5; i++) peek(r);
        assertThat(consume(r).allowed()).isTrue();
        RateUsage after = peek(r);
        assertThat(after.remaining()).isEqualTo(atOnce(algorithm) - 1);
        assertThat(after.blockedMillis()).isZero();
        while (consume(r).allowed()) {
            // up to the block
        }
        assertThat(peek(r).blockedMillis()).isEqualTo(900_000);
        ((KeyControl) backend).forget(r).toCompletableFuture().join();
        assertThat(peek(r)).isEqualTo(new RateUsage(atOnce(algorithm), 0, 0));
        for (int i = 0; i < atOnce(algorithm); i++) assertThat(consume(r).allowed()).isTrue();
    }
}
