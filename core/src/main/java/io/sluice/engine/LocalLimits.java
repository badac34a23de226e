package io.sluice.engine;

import java.util.function.Consumer;
import io.sluice.Decision;
import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.Rule;
import io.sluice.rule.Throttling;
import io.sluice.spi.Entry;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.time.Clock;
import java.time.Duration;
import java.util.function.IntSupplier;

/**
 * This server's share of each limit, decided in memory while the backend cannot answer ({@code
 * on-backend-failure=local}): the rule's numbers divided by the servers that share it ({@link LiveServers#divisor}), at
 * least 1, decided by the reference models of {@code io.sluice.memory} (an {@link InMemoryBackend} on the engine's
 * clock) under the same key names as the backend's. What it holds is kept when the backend answers again (the
 * backend decides from then on) and expires as the in-memory backend's idle state does. Thread-safe.
 */
public final class LocalLimits {
    /**
     * A local concurrency permit lasts until its request ends: the lease that returns a dead server's permits has
     * nothing to do here, where the permits die with the server.
     */
    static final Duration LOCAL_LEASE = Duration.ofDays(1);

    private final InMemoryBackend memory;
    private final IntSupplier divisor;

    /** @param divisor the servers a limit is divided among, at least 1 */
    public LocalLimits(Clock clock, IntSupplier divisor) {
        this.memory = new InMemoryBackend(clock);
        this.divisor = divisor;
    }

    /** This server's share of a limit of {@code limit}: divided by the servers, rounded down, at least 1. */
    public static long share(long limit, int servers) {
        return Math.max(1, limit / servers);
    }

    /** The servers a limit is divided among now. */
    public int divisor() {
        return divisor.getAsInt();
    }

    /** As {@link #rate(Rule, RateRequest, long, Consumer)}, for a caller that gives nothing back. */
    Decision rate(Rule rule, RateRequest request, long limit) {
        return rate(rule, request, limit, entry -> { });
    }

    /**
     * Decides {@code request} of {@code rule} (limited by the request's plan already) by this server's share: the
     * limit, burst and overage divided; an elastic rule cannot borrow (its capacity rule is in the backend), and a leaky
     * bucket queues nothing (a request is admitted on pace only).
     *
     * @param limit the rule's limit, which the decision reports
     * @param entry told, when admitted, the entry of its permits in the share (a log's), which {@link #giveBack} takes
     */
    Decision rate(Rule rule, RateRequest request, long limit, Consumer<Entry> entry) {
        RateRequest mine = shareOf(rule, request, divisor());
        RateOutcome o = memory.tryConsume(mine).toCompletableFuture().join();
        if (o.allowed()) entry.accept(o.entry());
        Duration retry = o.neverFits() ? rule.rate().orElseThrow().period()
                : Duration.ofMillis(Math.max(o.retryAfterMillis(), o.resetMillis()));
        return Decision.failedLocal(rule, Decision.Kind.RATE, limit, o.allowed(), retry, request.cost());
    }

    /** What {@code request} asks of this server's share when {@code servers} share the limit. */
    static RateRequest shareOf(Rule rule, RateRequest request, int servers) {
        long limit = share(request.limit(), servers);
        long effective = rule.ratePolicy().throttling() == Throttling.ELASTIC ? limit
                : Math.max(limit, request.effectiveLimit() / servers);
        return new RateRequest(request.key(), request.algorithm(), limit, request.period(), request.cost(),
                share(request.burst(), servers), 0, effective);
    }

    /**
     * Takes one of this server's share of {@code request}'s concurrency permits under its permit id, at once (no
     * waiting: nothing frees a local permit but a request of this server ending).
     */
    boolean acquire(LeaseRequest request) {
        LeaseRequest mine = new LeaseRequest(request.key(), (int) share(request.limit(), divisor()), LOCAL_LEASE,
                Duration.ZERO, request.permitId());
        LeaseOutcome o = memory.tryAcquire(mine).toCompletableFuture().join();
        return o.acquired();
    }

    /** Returns a permit {@link #acquire} took. */
    void release(LeaseRequest request) {
        memory.release(new LeaseRequest(request.key(), request.limit(), LOCAL_LEASE, Duration.ZERO, request.permitId()),
                request.permitId());
    }

    /**
     * Gives back a rate permit a local decision took for a request another rule then rejected: a log's entry
     * {@code entry} ({@link #rate}'s, the request's own; null: unknown, the newest of that cost).
     */
    void giveBack(Rule rule, RateRequest request, Entry entry) {
        if (!request.algorithm().refundable()) return;
        memory.refund(shareOf(rule, request, divisor()), entry);
    }
}
