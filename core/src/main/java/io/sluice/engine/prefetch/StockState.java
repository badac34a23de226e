package io.sluice.engine.prefetch;

/**
 * Where one key's prefetch on this server stands: one class per state, each answering the operations it allows with
 * the state that follows (as failsafe's circuit states). A state is a value holding the key's stocks, the one in use
 * and the next (a refill that landed early), either of which may be null; only their {@code left} changes in place.
 * Not thread-safe: the lock of the {@link KeySlot} that holds it guards it and its stocks.
 *
 * <pre>
 * NoStock ──fetch──▶ Fetching ──landed(stock)──▶ Fetching ──callEnded──▶ Stocked (or NoStock: it brought none)
 * Stocked ──refill (running low)──▶ Refilling ──landed(stock)──▶ Refilling ──callEnded──▶ Stocked
 *                                   Refilling ──foundNothing──▶ Refilling ──callEnded──▶ Dry (no refills)
 * Stocked, Dry ──fetch──▶ Fetching;  a state left without stocks and no call ──forget──▶ Gone;  any ──close──▶ Gone
 * </pre>
 */
abstract sealed class StockState permits StockState.NoStock, StockState.Stocked, StockState.Dry, StockState.Fetching,
        StockState.Refilling, StockState.Gone {
    final Stock current;
    final Stock next;

    private StockState(Stock current, Stock next) {
        this.current = current;
        this.next = next;
    }

    /** The state of a key holding {@code current} and {@code next} with no call in flight. */
    static StockState holding(Stock current, Stock next, boolean dry) {
        if (current == null && next == null) return NoStock.NONE;
        return dry ? new Dry(current, next) : new Stocked(current, next);
    }

    /** This state holding other stocks (one spent or ended, or of another limit handed back). */
    abstract StockState with(Stock current, Stock next);

    /** Whether a call of the key is in flight. */
    boolean calling() {
        return false;
    }

    boolean gone() {
        return false;
    }

    /** A request's own call for the key and its stock starts; null when one may not (a call in flight, gone). */
    StockState fetch() {
        return null;
    }

    /** The next stock is asked in the background (the current one runs low); null when this state does not refill. */
    StockState refill() {
        return null;
    }

    /** The call in flight brought {@code arrived}: the stocks it replaces are the caller's to hand back. */
    StockState landed(Stock arrived) {
        throw new IllegalStateException("no call in flight: " + this);
    }

    /** The refill in flight found nothing left (or failed): no more refills until a request's own call brings stock. */
    StockState foundNothing() {
        throw new IllegalStateException("no refill in flight: " + this);
    }

    /** The call in flight is answered and its stock in place (whatever it brought). */
    StockState callEnded() {
        return this;
    }

    /** The key is dropped from its map (left with nothing); null while it holds a stock or a call is in flight. */
    StockState forget() {
        return null;
    }

    /** The engine stops: every stock is the caller's to hand back. */
    StockState close() {
        return Gone.GONE;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName();
    }

    /** Nothing held and nothing asked: a key's first request, or one whose stocks went back. */
    static final class NoStock extends StockState {
        static final NoStock NONE = new NoStock();

        private NoStock() {
            super(null, null);
        }

        @Override
        StockState with(Stock current, Stock next) {
            return holding(current, next, false);
        }

        @Override
        StockState fetch() {
            return new Fetching(null, null, false);
        }

        @Override
        StockState forget() {
            return Gone.GONE;
        }
    }

    /** A stock in use (and perhaps the next), no call in flight: refilled when it runs low. */
    static final class Stocked extends StockState {
        Stocked(Stock current, Stock next) {
            super(current, next);
        }

        @Override
        StockState with(Stock current, Stock next) {
            return holding(current, next, false);
        }

        @Override
        StockState fetch() {
            return new Fetching(current, next, false);
        }

        @Override
        StockState refill() {
            return next == null ? new Refilling(current, null, false) : null;
        }
    }

    /**
     * A stock in use, no call in flight, and a refill found nothing left: refilling again at once would only ask
     * again, so the key waits for a request's own call to bring a stock.
     */
    static final class Dry extends StockState {
        Dry(Stock current, Stock next) {
            super(current, next);
        }

        @Override
        StockState with(Stock current, Stock next) {
            return holding(current, next, true);
        }

        @Override
        StockState fetch() {
            return new Fetching(current, next, true);
        }
    }

    /**
     * A request's own call for the key is in flight, beside what the key holds (stocks that could not pay it): what
     * it brings replaces them. {@code dry}: the key was {@link Dry}, which it stays when the call brings nothing.
     */
    static final class Fetching extends StockState {
        private final boolean dry;

        Fetching(Stock current, Stock next, boolean dry) {
            super(current, next);
            this.dry = dry;
        }

        @Override
        boolean calling() {
            return true;
        }

        @Override
        StockState with(Stock current, Stock next) {
            return new Fetching(current, next, dry);
        }

        @Override
        StockState landed(Stock arrived) {
            return new Fetching(arrived, null, false);
        }

        @Override
        StockState callEnded() {
            return holding(current, next, dry);
        }
    }

    /**
     * The next stock is asked in the background while the current one pays: it lands as the next. {@code dry}: a
     * refill found nothing, and the key becomes {@link Dry} when the call ends.
     */
    static final class Refilling extends StockState {
        private final boolean dry;

        Refilling(Stock current, Stock next, boolean dry) {
            super(current, next);
            this.dry = dry;
        }

        @Override
        boolean calling() {
            return true;
        }

        @Override
        StockState with(Stock current, Stock next) {
            return new Refilling(current, next, dry);
        }

        @Override
        StockState landed(Stock arrived) {
            return new Refilling(current, arrived, false);
        }

        @Override
        StockState foundNothing() {
            return new Refilling(current, next, true);
        }

        @Override
        StockState callEnded() {
            return holding(current, next, dry);
        }
    }

    /**
     * Dropped from the map (left with nothing) or closed: it holds nothing, and what arrives for it goes straight
     * back. A slot gone stays gone; the key's next request makes a new one.
     */
    static final class Gone extends StockState {
        static final Gone GONE = new Gone();

        private Gone() {
            super(null, null);
        }

        @Override
        boolean gone() {
            return true;
        }

        @Override
        StockState with(Stock current, Stock next) {
            return this;
        }

        @Override
        StockState landed(Stock arrived) {
            return this;
        }

        @Override
        StockState foundNothing() {
            return this;
        }

        @Override
        StockState forget() {
            return this;
        }
    }
}
