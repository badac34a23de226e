package io.sluice.engine.prefetch;

import io.sluice.memory.InMemoryBackend;
import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.ForwardingBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/** One key's slot: its state's transitions as requests, calls and the sweep meet it, and what it hands back. */
class KeySlotTest {
    private static final RateRequest REQUEST = new RateRequest("k", 100, Duration.ofSeconds(1), 1);
    private static final RateRequest OTHER_LIMIT = new RateRequest("k", 200, Duration.ofSeconds(1), 1);

    /** Records hand-backs, answered when the test says. */
    private static final class HandBackLog extends ForwardingBackend {
        final List<Long> handedBack = new ArrayList<>();
        CompletableFuture<Void> answer = CompletableFuture.completedFuture(null);

        HandBackLog() {
            super(new InMemoryBackend());
        }

        /** When the handed-back stocks' permits were used, one list a hand-back. */
        final List<List<PrefetchUse>> told = new ArrayList<>();

        /** What a hand-back says it credited: the whole rest unless the test sets it (a window that has ended). */
        Long credit;

        @Override
        public CompletionStage<Long> returnPrefetched(Prefetch prefetch, long unused, List<PrefetchUse> used) {
            told.add(used);
            CompletableFuture<Void> back = CompletableFuture.completedFuture(null);
            if (unused > 0) {
                handedBack.add(unused);
                back = answer;
            }
            return back.thenApply(v -> credit != null ? credit : unused);
        }
    }

    private final HandBackLog backend = new HandBackLog();
    private final List<String> told = new ArrayList<>();
    private final KeySlot slot = new KeySlot(new HandBacks(backend, told::add));

    private static Prefetch prefetch(RateRequest r, long taken, long remaining) {
        return new Prefetch(new RateOutcome(true, remaining, 1000, 0), r.withCost(1), taken, remaining, taken > 0 ? new Prefetch.Receipt("receipt", taken) : null);
    }

    private static Stock stock(RateRequest r, long taken, long at) {
        return new Stock(prefetch(r, taken, 50), at, at + 1000);
    }

    /** The slot after a request's own call brought {@code stock}. */
    private Stock stocked(Stock stock) {
        assertThat(slot.fetch()).isTrue();
        assertThat(slot.fetched(REQUEST, stock.prefetch, stock, stock.fetchedAt).kept()).isTrue();
        slot.landed();
        return stock;
    }

    @Test
    void aNewKeyHasNoStockAndFetchesOnce() {
        assertThat(slot.state()).isInstanceOf(StockState.NoStock.class);
        assertThat(slot.take(REQUEST, 0)).isNull();
        assertThat(slot.fetch()).isTrue();
        assertThat(slot.state()).isInstanceOf(StockState.Fetching.class);
        assertThat(slot.fetch()).as("one call per key").isFalse();
        CompletableFuture<Void> call = slot.inFlight();
        assertThat(call).isNotDone();
        slot.landed();
        assertThat(call).isDone();
        assertThat(slot.inFlight()).isNull();
        assertThat(slot.state()).isInstanceOf(StockState.NoStock.class);
        assertThat(slot.forgetIfEmpty()).isTrue();
        assertThat(slot.state().gone()).isTrue();
        assertThat(slot.fetch()).as("a slot gone stays gone").isFalse();
    }

    @Test
    void aStockPaysAndCountsWhatTheBackendHas() {
        stocked(stock(REQUEST, 10, 0));
        assertThat(slot.state()).isInstanceOf(StockState.Stocked.class);
        KeySlot.Paid paid = slot.take(REQUEST, 10);
        assertThat(paid.remaining()).as("50 in the backend, 9 here").isEqualTo(59);
        assertThat(paid.refill()).isFalse();
        assertThat(slot.held()).isEqualTo(9);
        assertThat(slot.take(OTHER_LIMIT, 10)).as("another limit's request").isNull();
        assertThat(slot.take(REQUEST, 1000)).as("its hold has ended").isNull();
    }

    /**
     * Issue 21: a log's stock-paid permit names its use; given back, it comes off that use (A's at 100), not the latest
     * (B's at 500), even once the hold has ended while the stock is still here; a permit the backend keeps under an
     * entry of its own, and one whose stock went back, are the backend's to give back.
     */
    @Test
    void aLogPermitGivenBackComesOffItsOwnUse() {
        Stock s = stocked(stock(REQUEST, 10, 0));
        Entry a = slot.take(REQUEST, 100).entry();
        assertThat(a).isEqualTo(new Entry.StockUse("receipt", 900));
        assertThat(slot.take(REQUEST, 500).entry()).isEqualTo(new Entry.StockUse("receipt", 500));
        assertThat(slot.putBack(REQUEST, 600, new Entry.LogEntry("a-request-entry"))).as("kept in the backend under its own entry").isFalse();
        assertThat(slot.putBack(REQUEST, 1000, a)).as("its stock still here, its hold ended").isTrue();
        assertThat(slot.held()).isEqualTo(9);
        slot.holdEnded(s);
        assertThat(backend.told).containsExactly(List.of(new PrefetchUse(1, 500)));
        assertThat(slot.putBack(REQUEST, 1000, new Entry.StockUse("receipt", 500))).as("its stock went back").isFalse();
    }

    @Test
    void aStockRunningLowRefillsOnceAndItsNextLandsBesideIt() {
        stocked(stock(REQUEST, 4, 0));
        assertThat(slot.take(REQUEST, 1).refill()).as("three of four left, early in the hold").isFalse();
        assertThat(slot.take(REQUEST, 800).refill()).as("a fifth of the hold left, a quarter used").isTrue();
        assertThat(slot.state()).isInstanceOf(StockState.Refilling.class);
        assertThat(slot.take(REQUEST, 800).refill()).as("one refill at a time").isFalse();
        Stock next = stock(REQUEST, 4, 800);
        assertThat(slot.refilled(next.prefetch, next, 800)).isTrue();
        slot.landed();
        assertThat(slot.state()).isInstanceOf(StockState.Stocked.class);
        assertThat(slot.state().next).isSameAs(next);
        assertThat(slot.take(REQUEST, 800).remaining()).as("the last of the current one, and the next").isEqualTo(50 + 4);
        assertThat(slot.take(REQUEST, 800).remaining()).as("the next pays once the current cannot").isEqualTo(50 + 3);
        assertThat(slot.state().current).isSameAs(next);
        assertThat(backend.handedBack).as("the spent stock had nothing left").isEmpty();
    }

    /**
     * Issue 26: a bucket's stock used up has nothing to hand back, and no round trip goes for it; its receipt goes with
     * the key's next call (which forgets its loan in the backend), once. A log's goes back with its uses, as before.
     */
    @Test
    void aUsedUpStockIsForgottenByTheKeysNextCallNotHandedBack() {
        RateRequest bucket = RateRequest.of(Algorithm.TOKEN_BUCKET, "k", 100, Duration.ofSeconds(1));
        Stock first = new Stock(prefetch(bucket, 2, 50), 0, 1000);
        assertThat(slot.fetch()).isTrue();
        slot.fetched(bucket, first.prefetch, first, 0);
        slot.landed();
        slot.take(bucket, 1);
        assertThat(slot.take(bucket, 2).refill()).as("used up: refills").isTrue();
        Stock next = new Stock(prefetch(bucket, 4, 50), 2, 1002);
        slot.refilled(next.prefetch, next, 2);
        slot.landed();
        assertThat(slot.usedUp()).as("still in use, though empty").isEmpty();
        slot.take(bucket, 3);
        assertThat(slot.state().current).isSameAs(next);
        assertThat(backend.handedBack).isEmpty();
        assertThat(backend.told).as("no hand-back of nothing").isEmpty();
        assertThat(slot.usedUp()).containsExactly(first.prefetch.receipt());
        assertThat(slot.usedUp()).as("once").isEmpty();

        KeySlot log = new KeySlot(new HandBacks(backend, told::add));
        Stock logStock = stock(REQUEST, 1, 0);
        log.fetch();
        log.fetched(REQUEST, logStock.prefetch, logStock, 0);
        log.landed();
        log.take(REQUEST, 1);
        log.handBackAll();
        assertThat(backend.told).as("a log's goes back with its use").containsExactly(List.of(new PrefetchUse(1, 999)));
        assertThat(log.usedUp()).isEmpty();
    }

    @Test
    void aRefillThatFindsNothingStopsRefillsUntilARequestsOwnCallBringsStock() {
        stocked(stock(REQUEST, 4, 0));
        assertThat(slot.take(REQUEST, 800).refill()).isTrue();
        assertThat(slot.refilled(null, null, 800)).isFalse();
        slot.landed();
        assertThat(slot.state()).isInstanceOf(StockState.Dry.class);
        assertThat(slot.take(REQUEST, 801).refill()).as("dry").isFalse();
        assertThat(slot.fetch()).isTrue();
        Stock fresh = stock(REQUEST, 4, 2);
        assertThat(slot.fetched(REQUEST, fresh.prefetch, fresh, 2).besides()).as("the two left of the old stock").isEqualTo(2);
        assertThat(backend.handedBack).containsExactly(2L);
        slot.landed();
        assertThat(slot.state()).isInstanceOf(StockState.Stocked.class);
        assertThat(slot.take(REQUEST, 900).refill()).as("refills again").isTrue();
    }

    @Test
    void theSweepDefersAStockWhileItsKeysCallIsInFlight() {
        Stock s = stocked(stock(REQUEST, 10, 0));
        assertThat(slot.fetch()).isTrue();
        assertThat(slot.holdEnded(s)).isEqualTo(KeySlot.Swept.DEFERRED);
        assertThat(backend.handedBack).isEmpty();
        slot.landed();
        assertThat(slot.holdEnded(s)).isEqualTo(KeySlot.Swept.FORGOTTEN);
        assertThat(backend.handedBack).containsExactly(10L);
        assertThat(told).containsExactly("k");
        assertThat(slot.state().gone()).isTrue();
    }

    @Test
    void anEndedHoldOfTheNextLeavesTheCurrent() {
        Stock s = stocked(stock(REQUEST, 4, 0));
        assertThat(slot.take(REQUEST, 800).refill()).isTrue();
        Stock next = stock(REQUEST, 4, 800);
        slot.refilled(next.prefetch, next, 800);
        slot.landed();
        assertThat(slot.holdEnded(next)).isEqualTo(KeySlot.Swept.HANDED_BACK);
        assertThat(slot.state().current).isSameAs(s);
        assertThat(slot.state().next).isNull();
        assertThat(slot.holdEnded(stock(REQUEST, 4, 0))).as("a stock no longer here").isEqualTo(KeySlot.Swept.HANDED_BACK);
        assertThat(backend.handedBack).containsExactly(4L);
    }

    @Test
    void aHandBackStaysInFlightUntilAnswered() {
        backend.answer = new CompletableFuture<>();
        HandBacks handBacks = new HandBacks(backend, told::add);
        KeySlot other = new KeySlot(handBacks);
        other.fetch();
        Stock s = stock(OTHER_LIMIT, 10, 0);
        other.fetched(OTHER_LIMIT, s.prefetch, s, 0);
        other.landed();
        CompletableFuture<Void> back = other.handBackUnfit(REQUEST, 0);
        assertThat(back).isNotNull().isNotDone();
        assertThat(other.state()).isInstanceOf(StockState.NoStock.class);
        assertThat(handBacks.inFlight("k")).isNotNull();
        backend.answer.complete(null);
        assertThat(back).isDone();
        assertThat(handBacks.inFlight("k")).isNull();
        assertThat(handBacks.allAnswered()).isDone();
    }

    @Test
    void handBackUnfitKeepsAStockThatPays() {
        stocked(stock(REQUEST, 10, 0));
        assertThat(slot.handBackUnfit(REQUEST, 0)).isNull();
        assertThat(slot.held()).isEqualTo(10);
    }

    @Test
    void handBackUnfitHandsBackAStockTooSmallForTheCostOrEnded() {
        stocked(stock(REQUEST, 3, 0));
        assertThat(slot.handBackUnfit(REQUEST.withCost(4), 0)).as("3 left, cost 4").isNotNull();
        assertThat(slot.held()).isZero();
        assertThat(backend.handedBack).containsExactly(3L);
        assertThat(slot.remaining(REQUEST, 2, () -> 0L, 0)).as("what the backend says, the stock being back").isEqualTo(2);
        stocked(stock(REQUEST, 10, 0));
        assertThat(slot.handBackUnfit(REQUEST, 999)).as("within its hold").isNull();
        assertThat(slot.handBackUnfit(REQUEST, 1000)).as("its hold ended, not swept yet").isNotNull();
        assertThat(backend.handedBack).containsExactly(3L, 10L);
    }

    @Test
    void aLogsStockGoesBackTellingWhenItsPermitsWereUsed() {
        // Seed 19: a log counted a stock's used permits from its hold's end for good, so they left the window up to
        // a hold late. Handed back, they are counted from their uses.
        Stock s = stocked(stock(REQUEST, 10, 0));
        assertThat(slot.take(REQUEST, 100)).isNotNull();
        assertThat(slot.take(REQUEST.withCost(2), 400)).isNotNull();
        assertThat(slot.holdEnded(s)).isEqualTo(KeySlot.Swept.FORGOTTEN);
        assertThat(backend.handedBack).containsExactly(7L);
        assertThat(backend.told).containsExactly(List.of(new PrefetchUse(1, 900), new PrefetchUse(2, 600)));
    }

    @Test
    void aLogsStockUsedUpStillGoesBackForItsTimes() {
        Stock s = stock(REQUEST, 2, 0);
        s.pay(REQUEST.withCost(2), 250);
        assertThat(new HandBacks(backend, told::add).send(s)).isDone();
        assertThat(backend.told).containsExactly(List.of(new PrefetchUse(2, 750)));
        assertThat(backend.handedBack).isEmpty();
    }

    @Test
    void aPermitPutBackIsNoLongerAUse() {
        Stock s = stocked(stock(REQUEST, 3, 0));
        slot.take(REQUEST, 100);
        slot.take(REQUEST, 200);
        assertThat(slot.putBack(REQUEST, 250)).isTrue();
        slot.holdEnded(s);
        assertThat(backend.handedBack).containsExactly(2L);
        assertThat(backend.told).containsExactly(List.of(new PrefetchUse(1, 900)));
    }

    @Test
    void aStockTooSmallForTheCostGoesBackBeforeTheBackendDecides() {
        // Seed 36: 5/1h, prefetch 3, a cost of 2 against a stock of 1. Kept out, that 1 made Redis reject a request
        // it admits without prefetch.
        stocked(stock(REQUEST, 3, 0));
        assertThat(slot.take(REQUEST.withCost(2), 0)).isNotNull();
        RateRequest costly = REQUEST.withCost(2);
        assertThat(slot.take(costly, 0)).isNull();
        assertThat(slot.handBackUnfit(costly, 0)).isNotNull().isDone();
        assertThat(backend.handedBack).containsExactly(1L);
        assertThat(slot.held()).isZero();
    }

    @Test
    void aCallThatBringsNothingCountsTheStocksOfItsLimit() {
        stocked(stock(REQUEST, 10, 0));
        slot.fetch();
        KeySlot.Landing none = slot.fetched(REQUEST, prefetch(REQUEST, 0, 7), null, 5);
        assertThat(none.kept()).isFalse();
        assertThat(none.besides()).isEqualTo(10);
        assertThat(slot.fetched(OTHER_LIMIT, prefetch(OTHER_LIMIT, 0, 7), null, 5).besides()).isZero();
        slot.landed();
        assertThat(slot.state()).isInstanceOf(StockState.Stocked.class);
        assertThat(slot.forgetIfEmpty()).isFalse();
    }

    @Test
    void permitsPutBackFitTheStockInUse() {
        stocked(stock(REQUEST, 10, 0));
        assertThat(slot.putBack(REQUEST, 1)).as("never more than it took").isFalse();
        slot.take(REQUEST, 1);
        assertThat(slot.putBack(OTHER_LIMIT, 1)).isFalse();
        assertThat(slot.putBack(REQUEST, 1)).isTrue();
        assertThat(slot.held()).isEqualTo(10);
        assertThat(slot.putBack(REQUEST, 1000)).as("its hold has ended").isFalse();
    }

    @Test
    void remainingCountsWhatTheBackendSaidAndTheStocks() {
        stocked(stock(REQUEST, 10, 0));
        assertThat(slot.remaining(REQUEST, 30, () -> 0, 1000)).isEqualTo(40);
        assertThat(slot.remaining(OTHER_LIMIT, 30, () -> 0, 1000)).isEqualTo(30);
        slot.refunded(REQUEST);
        assertThat(slot.take(REQUEST, 1).remaining()).as("30 heard, 1 refunded, 9 here").isEqualTo(40);
    }

    private static final RateRequest SLIDING = new RateRequest("k", Algorithm.SLIDING_WINDOW, 100, Duration.ofSeconds(10), 1, 100, 0, 100);
    private static final RateRequest FIXED = new RateRequest("k", Algorithm.FIXED_WINDOW, 100, Duration.ofSeconds(10), 1, 100, 0, 100);

    /** A window counter's stock of {@code taken} permits counted in {@code window}, the backend then left {@code remaining}. */
    private static Stock windowStock(RateRequest r, long taken, long remaining, long window, long at) {
        Prefetch p = new Prefetch(new RateOutcome(true, remaining, 1000, 0), r.withCost(1), taken, remaining,
                new Prefetch.Receipt("s" + window, taken), 1000, new Entry.WindowIndex(window));
        return new Stock(p, at, at + 1000);
    }

    /** The slot holding {@code current}, 1 of its 4 left, and, landed beside it by a refill, {@code next}. */
    private void currentAndNext(RateRequest r, Stock current, Stock next) {
        assertThat(slot.fetch()).isTrue();
        assertThat(slot.fetched(r, current.prefetch, current, current.fetchedAt).kept()).isTrue();
        slot.landed();
        slot.take(r, current.fetchedAt);
        slot.take(r, current.fetchedAt);
        assertThat(slot.take(r, current.fetchedAt).refill()).isTrue();
        assertThat(slot.refilled(next.prefetch, next, next.fetchedAt)).isTrue();
        slot.landed();
    }

    /**
     * A sliding window's stock handed back once its window turned comes off the previous window, which weighs less:
     * what the key has left rises by what the backend says it credited (here nothing), not by the stock's rest (1).
     * Until the answer, the rest counts (the window may not have turned).
     */
    @Test
    void aStockHandedBackAfterItsWindowCreditsWhatTheBackendSays() {
        Stock a = windowStock(SLIDING, 4, 50, 0, 0);
        Stock b = windowStock(SLIDING, 4, 30, 1, 500);
        currentAndNext(SLIDING, a, b);
        backend.credit = 0L;
        backend.answer = new CompletableFuture<>();
        assertThat(slot.holdEnded(a)).isEqualTo(KeySlot.Swept.HANDED_BACK);
        assertThat(backend.handedBack).containsExactly(1L);
        assertThat(slot.take(SLIDING, 900).remaining()).as("30 heard, a's 1 expected, 3 of b").isEqualTo(34);
        backend.answer.complete(null);
        assertThat(slot.take(SLIDING, 900).remaining()).as("30 heard, nothing credited, 2 of b").isEqualTo(32);
    }

    /** A call's answer heard after a hand-back was sent counted it already: the hand-back's late credit leaves it alone. */
    @Test
    void aHandBacksCreditCorrectsOnlyWhatWasHeardBeforeIt() {
        Stock a = windowStock(SLIDING, 4, 50, 0, 0);
        Stock b = windowStock(SLIDING, 4, 30, 1, 500);
        currentAndNext(SLIDING, a, b);
        backend.credit = 0L;
        backend.answer = new CompletableFuture<>();
        slot.holdEnded(a);
        assertThat(slot.remaining(SLIDING, 25, () -> 900, 1000)).as("25 in the backend, 4 of b").isEqualTo(29);
        backend.answer.complete(null);
        assertThat(slot.take(SLIDING, 900).remaining()).as("25 heard after a's hand-back, 3 of b").isEqualTo(28);
    }

    /**
     * A fixed window's stock spent once the next window's stock pays: its window has ended, and its hand-back lowers no
     * counter, so the paying request's remaining counts none of it, before the backend even answers.
     */
    @Test
    void aFixedWindowsStockSpentAfterItsWindowCountsNothing() {
        Stock a = windowStock(FIXED, 4, 50, 0, 0);
        Stock b = windowStock(FIXED, 4, 96, 1, 500);
        currentAndNext(FIXED, a, b);
        backend.answer = new CompletableFuture<>();
        assertThat(slot.take(FIXED, 1000).remaining()).as("a ended: 96 heard, 3 of b").isEqualTo(99);
        assertThat(backend.handedBack).containsExactly(1L);
    }

    @Test
    void closingHandsItsStocksToTheCallerAndWhatLandsAfterGoesBack() {
        stocked(stock(REQUEST, 10, 0));
        assertThat(slot.fetch()).isTrue();
        List<Stock> back = slot.close();
        assertThat(back).hasSize(1);
        assertThat(slot.state().gone()).isTrue();
        Stock late = stock(REQUEST, 5, 1);
        assertThat(slot.fetched(REQUEST, late.prefetch, late, 1).kept()).isFalse();
        assertThat(backend.handedBack).containsExactly(5L);
        slot.landed();
        assertThat(slot.inFlight()).isNull();
        assertThat(slot.take(REQUEST, 1)).isNull();
        assertThat(slot.putBack(REQUEST, 1)).isFalse();
    }

    /** A costly request decided in the backend without a call of the slot's (more than a stock of the key holds). */
    private static final RateRequest COSTLY = REQUEST.withCost(5);

    /** The key's own call, answered {@code remaining} with a stock of 4: nothing held before it. */
    private void fetchedFour(long remaining) {
        assertThat(slot.fetch()).isTrue();
        Stock brought = new Stock(prefetch(REQUEST, 4, remaining), 0, 1000);
        assertThat(slot.fetched(REQUEST, brought.prefetch, brought, 0).kept()).isTrue();
        slot.landed();
    }

    /**
     * The backend ran the decision first (50 left, then 45) and the key's call after it (1 and 4 ahead: 40), whose answer
     * landed first: the decision's answer counted the call's stock as the key's still. 40 heard, 4 held.
     */
    @Test
    void aDecisionLandingAfterACallItCrossedCountsItsStockOnce() {
        slot.deciding(COSTLY);
        fetchedFour(40);
        assertThat(slot.remaining(COSTLY, 45, () -> 0, 1000)).as("the decision: 40 in the backend, 4 here").isEqualTo(44);
        assertThat(slot.take(REQUEST, 1).remaining()).as("40 heard, 3 here").isEqualTo(43);
    }

    /**
     * The backend ran the key's call first (45 left after it) and the decision after it (40), whose answer landed first:
     * the call's answer leaves out the decision's permits.
     */
    @Test
    void aCallLandingAfterADecisionItCrossedCountsTheDecision() {
        assertThat(slot.fetch()).isTrue();
        slot.deciding(COSTLY);
        assertThat(slot.remaining(COSTLY, 40, () -> 0, 1000)).as("the decision: the stock not landed yet").isEqualTo(40);
        Stock brought = new Stock(prefetch(REQUEST, 4, 45), 0, 1000);
        assertThat(slot.fetched(REQUEST, brought.prefetch, brought, 0).kept()).isTrue();
        slot.landed();
        assertThat(slot.take(REQUEST, 1).remaining()).as("40 heard, 3 here").isEqualTo(43);
    }

    /** Answers that did not cross are in the backend's order: the later one says what is left, even more (a window turned). */
    @Test
    void aDecisionSentAfterACallLandedSaysWhatIsLeft() {
        fetchedFour(40);
        slot.deciding(COSTLY);
        assertThat(slot.remaining(COSTLY, 60, () -> 0, 1000)).isEqualTo(64);
        assertThat(slot.take(REQUEST, 1).remaining()).isEqualTo(63);
        assertThat(slot.take(REQUEST, 1).refill()).isFalse();
        assertThat(slot.take(REQUEST, 1).refill()).as("a quarter left").isTrue();
        slot.deciding(COSTLY);
        Stock next = new Stock(prefetch(REQUEST, 4, 50), 0, 1000);
        assertThat(slot.refilled(next.prefetch, next, 0)).isTrue();
        slot.landed();
        slot.decided(COSTLY);
        assertThat(slot.take(REQUEST, 1).remaining()).as("the refill heard in order, the decision failed: 50, 4 here").isEqualTo(54);
    }
}
