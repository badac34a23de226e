package io.sluice.engine.prefetch;

import io.sluice.rule.AutoPrefetch;
import io.sluice.rule.PrefetchSize;
import io.sluice.rule.Rule;
import io.sluice.spi.RateRequest;

import java.util.function.IntSupplier;

/**
 * How many permits this server takes ahead for a key: the rule's fixed {@code prefetch}, or under {@code auto} twice
 * the key's demand per hold on this server, once that is at least {@link #BUSY} requests, at most the limit's share
 * ({@link AutoPrefetch#share}) divided among the servers that share the backend, and none below
 * {@link AutoPrefetch#SMALLEST_STOCK}. 0: not worth a stock. Thread-safe.
 */
final class StockSizes {
    /** Requests per hold from which a key is busy enough to stock: fewer pay their round trips without a stock's hand-back. */
    static final long BUSY = 4;
    /** A stock holds this many holds' worth of the key's demand: the refill, asked at a quarter left, lands in time. */
    static final long HOLDS_OF_DEMAND = 2;

    private final KeyDemand demand = new KeyDemand();
    private final DryKeys dry = new DryKeys();
    /** The servers sharing the backend, as last counted (1 before any count). */
    private final IntSupplier servers;

    StockSizes(IntSupplier servers) {
        this.servers = servers;
    }

    /** Counts a request that reaches the stock of its key: demand, whether the stock pays it or not. */
    void arrived(Rule rule, RateRequest request, long nowMillis) {
        if (rule.ratePolicy().prefetch().auto()) demand.arrived(request.key(), nowMillis, holdMillis(rule));
    }

    /** Permits to take ahead for {@code request}'s key now; 0 when a stock is not worth it. */
    long ahead(Rule rule, RateRequest request, long nowMillis) {
        PrefetchSize size = rule.ratePolicy().prefetch();
        if (!size.auto()) return size.permits();
        long perHold = demand.perHold(request.key(), nowMillis, holdMillis(rule));
        if (perHold < BUSY || dry.dry(request.key(), nowMillis)) return 0;
        return worthIt(Math.min(perHold * HOLDS_OF_DEMAND, most(request)));
    }

    /**
     * The next stock's size while {@code held} permits are left of the one in use: the rule's fixed {@code prefetch}, or
     * under {@code auto} what the key's share leaves beside them, so that the two stay within it; 0 when that is not
     * worth a stock.
     */
    long refill(Rule rule, RateRequest request, long held, long nowMillis) {
        if (!rule.ratePolicy().prefetch().auto()) return rule.ratePolicy().prefetch().permits();
        long perHold = demand.perHold(request.key(), nowMillis, holdMillis(rule));
        return worthIt(Math.min(Math.max(perHold, BUSY) * HOLDS_OF_DEMAND, most(request)) - held);
    }

    /**
     * A call of the key's brought fewer permits than it asked at {@code nowMillis}: under {@code auto} its requests go to
     * the backend for a hold ({@link DryKeys}). A fixed {@code prefetch} keeps asking, as its size says.
     */
    void cameShort(Rule rule, RateRequest request, long nowMillis) {
        if (rule.ratePolicy().prefetch().auto()) dry.cameShort(request.key(), nowMillis, holdMillis(rule));
    }

    /** A limit's share divided among the servers. */
    private long most(RateRequest request) {
        return AutoPrefetch.share(request.limit(), request.burst()) / Math.max(1, servers.getAsInt());
    }

    private static long worthIt(long size) {
        return size >= AutoPrefetch.SMALLEST_STOCK ? size : 0;
    }

    private static long holdMillis(Rule rule) {
        return Math.max(1, rule.ratePolicy().prefetchHold().toMillis());
    }
}
