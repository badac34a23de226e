package io.sluice.engine.prefetch;

import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each state of a key's prefetch: the operations it answers and the state that follows. Pure Java. */
class StockStateTest {
    private static final RateRequest PERMIT = new RateRequest("k", 100, Duration.ofSeconds(1), 1);

    private static Stock stock() {
        return new Stock(new Prefetch(new RateOutcome(true, 50, 1000, 0), PERMIT, 10, 40, new Prefetch.Receipt("r", 10)), 0, 1000);
    }

    private final Stock a = stock();
    private final Stock b = stock();

    @Nested
    class NoStockState {
        private final StockState none = StockState.NoStock.NONE;

        @Test
        void holdsNothingAndAsksNothing() {
            assertThat(none.current).isNull();
            assertThat(none.next).isNull();
            assertThat(none.calling()).isFalse();
            assertThat(none.gone()).isFalse();
            assertThat(none.refill()).as("nothing to refill").isNull();
        }

        @Test
        void startsAFetch() {
            StockState f = none.fetch();
            assertThat(f).isInstanceOf(StockState.Fetching.class);
            assertThat(f.calling()).isTrue();
        }

        @Test
        void isForgotten() {
            assertThat(none.forget()).isInstanceOf(StockState.Gone.class);
        }

        @Test
        void stocksGivenMakeItStocked() {
            assertThat(none.with(a, null)).isInstanceOf(StockState.Stocked.class);
            assertThat(none.with(null, null)).isSameAs(none);
        }

        @Test
        void hasNoCallToLand() {
            assertThatThrownBy(() -> none.landed(a)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(none::foundNothing).isInstanceOf(IllegalStateException.class);
            assertThat(none.callEnded()).isSameAs(none);
        }
    }

    @Nested
    class StockedState {
        private final StockState stocked = StockState.holding(a, null, false);

        @Test
        void holdsItsStocks() {
            assertThat(stocked).isInstanceOf(StockState.Stocked.class);
            assertThat(stocked.current).isSameAs(a);
            assertThat(stocked.calling()).isFalse();
            assertThat(stocked.forget()).as("a key with stock is kept").isNull();
        }

        @Test
        void refillsWhenItHasNoNext() {
            StockState r = stocked.refill();
            assertThat(r).isInstanceOf(StockState.Refilling.class);
            assertThat(r.current).isSameAs(a);
            assertThat(r.next).isNull();
            assertThat(StockState.holding(a, b, false).refill()).as("a next already landed").isNull();
        }

        @Test
        void startsAFetchKeepingItsStocks() {
            StockState f = stocked.fetch();
            assertThat(f).isInstanceOf(StockState.Fetching.class);
            assertThat(f.current).isSameAs(a);
        }

        @Test
        void withoutStocksHasNoStock() {
            assertThat(stocked.with(null, null)).isInstanceOf(StockState.NoStock.class);
            assertThat(StockState.holding(a, b, false).with(b, null)).isInstanceOf(StockState.Stocked.class);
        }

        @Test
        void closes() {
            StockState closed = stocked.close();
            assertThat(closed.gone()).isTrue();
            assertThat(closed.current).isNull();
        }
    }

    @Nested
    class DryState {
        private final StockState dry = StockState.holding(a, null, true);

        @Test
        void neverRefills() {
            assertThat(dry).isInstanceOf(StockState.Dry.class);
            assertThat(dry.refill()).isNull();
            assertThat(dry.with(b, null)).as("stays dry with other stocks").isInstanceOf(StockState.Dry.class);
            assertThat(dry.with(null, null)).isInstanceOf(StockState.NoStock.class);
        }

        @Test
        void aFetchThatBringsNothingLeavesItDry() {
            StockState f = dry.fetch();
            assertThat(f).isInstanceOf(StockState.Fetching.class);
            assertThat(f.callEnded()).isInstanceOf(StockState.Dry.class);
        }

        @Test
        void aFetchThatBringsStockEndsIt() {
            StockState f = dry.fetch().landed(b);
            assertThat(f.current).isSameAs(b);
            assertThat(f.callEnded()).isInstanceOf(StockState.Stocked.class);
        }
    }

    @Nested
    class FetchingState {
        private final StockState fetching = StockState.holding(a, b, false).fetch();

        @Test
        void isOneCallAtATime() {
            assertThat(fetching.calling()).isTrue();
            assertThat(fetching.fetch()).isNull();
            assertThat(fetching.refill()).isNull();
            assertThat(fetching.forget()).as("its call still lands").isNull();
            assertThat(fetching.with(null, null).forget()).isNull();
        }

        @Test
        void whatLandsReplacesEveryStock() {
            Stock c = stock();
            StockState landed = fetching.landed(c);
            assertThat(landed.calling()).as("until its waiters are told").isTrue();
            assertThat(landed.current).isSameAs(c);
            assertThat(landed.next).isNull();
            StockState ended = landed.callEnded();
            assertThat(ended).isInstanceOf(StockState.Stocked.class);
            assertThat(ended.calling()).isFalse();
        }

        @Test
        void nothingLandedKeepsItsStocks() {
            StockState ended = fetching.callEnded();
            assertThat(ended).isInstanceOf(StockState.Stocked.class);
            assertThat(ended.current).isSameAs(a);
            assertThat(ended.next).isSameAs(b);
            assertThat(StockState.NoStock.NONE.fetch().callEnded()).isInstanceOf(StockState.NoStock.class);
        }

        @Test
        void isNeverARefill() {
            assertThatThrownBy(fetching::foundNothing).isInstanceOf(IllegalStateException.class);
        }

        @Test
        void closes() {
            assertThat(fetching.close().gone()).isTrue();
        }
    }

    @Nested
    class RefillingState {
        private final StockState refilling = StockState.holding(a, null, false).refill();

        @Test
        void isOneCallAtATime() {
            assertThat(refilling.calling()).isTrue();
            assertThat(refilling.fetch()).isNull();
            assertThat(refilling.refill()).isNull();
            assertThat(refilling.forget()).isNull();
        }

        @Test
        void whatLandsIsTheNext() {
            StockState landed = refilling.landed(b);
            assertThat(landed.current).isSameAs(a);
            assertThat(landed.next).isSameAs(b);
            assertThat(landed.callEnded()).isInstanceOf(StockState.Stocked.class);
        }

        @Test
        void findingNothingMakesItDry() {
            StockState ended = refilling.foundNothing().callEnded();
            assertThat(ended).isInstanceOf(StockState.Dry.class);
            assertThat(ended.current).isSameAs(a);
        }

        @Test
        void itsStocksMayGoMeanwhile() {
            StockState emptied = refilling.with(null, null);
            assertThat(emptied.calling()).isTrue();
            assertThat(emptied.landed(b).callEnded().next).isSameAs(b);
            assertThat(emptied.callEnded()).isInstanceOf(StockState.NoStock.class);
        }
    }

    @Nested
    class GoneState {
        private final StockState gone = StockState.holding(a, null, false).close();

        @Test
        void staysGone() {
            assertThat(gone.gone()).isTrue();
            assertThat(gone.fetch()).isNull();
            assertThat(gone.refill()).isNull();
            assertThat(gone.landed(b)).as("what arrives goes straight back").isSameAs(gone);
            assertThat(gone.landed(b).current).isNull();
            assertThat(gone.foundNothing()).isSameAs(gone);
            assertThat(gone.callEnded()).isSameAs(gone);
            assertThat(gone.with(null, null)).isSameAs(gone);
            assertThat(gone.forget()).isSameAs(gone);
            assertThat(gone.close()).isSameAs(gone);
        }

        @Test
        void aCallInFlightWhenClosedEndsGone() {
            assertThat(StockState.holding(a, null, false).refill().close().callEnded().gone()).isTrue();
            assertThat(StockState.NoStock.NONE.fetch().close().gone()).isTrue();
        }
    }
}
