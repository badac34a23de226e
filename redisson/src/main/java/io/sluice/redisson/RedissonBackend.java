package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Announcing;
import io.sluice.spi.Batching;
import io.sluice.spi.Connecting;
import io.sluice.spi.KeyControl;
import io.sluice.spi.KeyLayout;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Overriding;
import io.sluice.spi.Prefetch;
import io.sluice.spi.PrefetchUse;
import io.sluice.spi.Prefetching;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.Charging;
import io.sluice.spi.RateUsage;
import io.sluice.spi.Refunding;
import io.sluice.spi.ServerClock;
import io.sluice.spi.StoredOverride;
import io.sluice.spi.StoredOverrides;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RTopic;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.codec.StringCodec;
import org.redisson.connection.ConnectionManager;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * Limits in Redis, in the data layout of Redisson's {@link RRateLimiter} (type {@code OVERALL}) and
 * {@link RPermitExpirableSemaphore}, so that Redisson's own objects of the same name read and change the
 * same state. Each decision is one Lua script, one round trip, answering everything the response headers
 * need (Redisson's {@code tryAcquire} answers only a boolean, and {@code availablePermits} would be a
 * second round trip). The scripts also initialise missing state, so a limiter lost to {@code FLUSHALL},
 * eviction or a failover heals on its next use instead of failing with "not initialized" or denying forever.
 *
 * <p>The other rate algorithms ({@code token-bucket}, {@code leaky-bucket}, {@code fixed-window},
 * {@code sliding-window}) run Sluice's own scripts, one per algorithm, on one key each, on Redis {@code TIME}:
 * the application servers' clocks do not take part. Their reference models are in {@code io.sluice.memory}.
 *
 * <p>This class connects and implements the SPI; each script is a class of its own that owns its arguments and
 * reads its answer ({@link AcquireScript}, {@link SlidingLogScript}...), {@link DecisionCalls} sends a lane's
 * decisions in one call, and {@link StockCalls} lends and hands back the prefetched stocks.
 *
 * <p>Scripts are never retried: a retried limiter script can count twice. Time of {@code sliding-log} and of
 * leases comes from the injected clock of this server, as Redisson's primitives do. Every key written gets a
 * TTL. Thread-safe.
 *
 * <p>Redisson's lazy start connects on the first command <em>in the calling thread</em>, retrying for as
 * long as its configuration says (seconds with Redisson's defaults). So that no request thread ever waits
 * for a connection, the first connection is made on a thread of this backend's own; until it succeeds,
 * operations wait for it without blocking a thread (the caller's deadline bounds that wait), and a failed
 * attempt is retried at most once a second, on demand.
 */
public final class RedissonBackend
        implements LimiterBackend, Batching, Prefetching, Refunding, Charging, ServerClock, Connecting, KeyLayout, Announcing,
        KeyControl, Overriding {
    /**
     * How much longer than its window a sliding log lives in Redis under a test's clock ({@link #onCallerClock}), as
     * {@code redis-time.lua}'s slack does for the scripts on Redis time: Redis expires keys on its own real time, which
     * a test's clock does not follow (a run may spend seconds of real time at one instant of its own, and a log that
     * expired meanwhile would forget permits its window still counts).
     */
    static final long CALLER_TIME_KEEP_ALIVE_MILLIS = 60_000;
    private final RedissonClient redisson;
    private final boolean ownsClient;
    private final Clock clock;
    private final boolean callerTime;
    private final Duration timeout;
    private final RScript scripts;
    private final DecisionLanes lanes;
    private final LeaseWaiters waiters;
    private final AcquireScript acquire;
    private final RenewScript renew;
    private final ReleaseScript release;
    private final AvailableScript available;
    private final RefundLogScript refundLog;
    private final UndoSlotScript undoSlot;
    private final ForgetScript forget;
    private final ServerTimeScript serverTime;
    private final CallExpiry expiry;
    private final OverridePutScript overridePut;
    private final OverrideRemoveScript overrideRemove;
    private final OverridesReadScript overridesRead;
    private final OverridesVersion overridesVersion;
    private final AnnounceScript announce;
    private final DecisionCalls calls;
    private final StockCalls stocks;
    private final Object connectLock = new Object();
    private volatile boolean connected;
    private volatile boolean closed;
    /** Completed by the first attempt that succeeds; only a close fails it. */
    private final CompletableFuture<Void> connectedOnce = new CompletableFuture<>();
    private CompletableFuture<Void> connection; // guarded by connectLock
    private long lastAttemptNanos;              // guarded by connectLock

    /**
     * @param redisson   the client; closed by {@link #close()} only when {@code ownsClient}
     * @param clock      this server's clock, the time base of both Redisson primitives
     * @param timeout    per-command timeout handed to Redisson (Sluice bounds each decision separately too)
     */
    public RedissonBackend(RedissonClient redisson, boolean ownsClient, Clock clock, Duration timeout) {
        this(redisson, ownsClient, clock, timeout, false);
    }

    private RedissonBackend(RedissonClient redisson, boolean ownsClient, Clock clock, Duration timeout, boolean callerTime) {
        this.redisson = redisson;
        this.ownsClient = ownsClient;
        this.clock = clock;
        this.callerTime = callerTime;
        this.timeout = timeout;
        this.scripts = redisson.getScript(OptionalOptions.defaults()
                .codec(ScriptArgumentCodec.INSTANCE).timeout(timeout).retryAttempts(0));
        this.serverTime = new ServerTimeScript(scripts);
        this.expiry = new CallExpiry(serverTime::call, timeout);
        this.calls = new DecisionCalls(scripts, clock, callerTime, expiry);
        this.lanes = new DecisionLanes(slots(redisson), DecisionScript.REFUND, calls::send);
        this.waiters = new LeaseWaiters(this::subscribe, clock::millis);
        this.acquire = new AcquireScript(scripts);
        this.renew = new RenewScript(scripts);
        this.release = new ReleaseScript(scripts);
        this.available = new AvailableScript(scripts);
        this.refundLog = new RefundLogScript(scripts);
        this.undoSlot = new UndoSlotScript(scripts);
        this.forget = new ForgetScript(scripts);
        this.overridePut = new OverridePutScript(scripts);
        this.overrideRemove = new OverrideRemoveScript(scripts);
        this.overridesRead = new OverridesReadScript(scripts);
        this.overridesVersion = new OverridesVersion(redisson, timeout);
        this.announce = new AnnounceScript(scripts);
        this.stocks = new StockCalls(scripts, lanes, calls, clock, this::whenConnected, () -> closed);

        connection();
    }

    private static final long RECONNECT_SPACING_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final String PING = "return 1";
    /** Tells the scripts to wake waiters with both PUBLISH and (where Redis has it) SPUBLISH. */
    private static final String PUBLISH_BOTH = "both";
    private static final String SPUBLISH = "spublish";

    /**
     * For tests only (package-private, unreachable from configuration): the algorithms that run on Redis
     * {@code TIME} take {@code clock}'s time instead, so a test can move time and compare the scripts with
     * their reference models.
     */
    static RedissonBackend onCallerClock(RedissonClient redisson, Clock clock, Duration timeout) {
        return new RedissonBackend(redisson, false, clock, timeout, true);
    }

    /**
     * Which cluster slot a key is in, so that only keys of one slot share a script call: Redisson's own reckoning
     * where the client is Redisson's class (0 outside a cluster), 0 for any other client outside a cluster, and
     * null (no keys share a call) for another client of a cluster.
     */
    private static ToIntFunction<String> slots(RedissonClient redisson) {
        if (redisson instanceof Redisson r) {
            ConnectionManager connections = r.getCommandExecutor().getConnectionManager();
            return connections::calcSlot;
        }
        return redisson.getConfig().isClusterConfig() ? null : key -> 0;
    }

    /** Runs {@code call} now when connected; otherwise once the (background) first connection succeeds. */
    private <T> CompletionStage<T> whenConnected(Supplier<CompletionStage<T>> call) {
        if (connected) return call.get();
        return connection().thenCompose(ignored -> call.get());
    }

    private CompletableFuture<Void> connection() {
        synchronized (connectLock) {
            boolean failed = connection != null && connection.isCompletedExceptionally();
            if (connection == null || failed && System.nanoTime() - lastAttemptNanos >= RECONNECT_SPACING_NANOS) {
                lastAttemptNanos = System.nanoTime();
                CompletableFuture<Void> attempt = new CompletableFuture<>();
                connection = attempt;
                if (closed) {
                    attempt.completeExceptionally(new IllegalStateException("Sluice's Redis backend is closed"));
                } else {
                    Thread connector = new Thread(() -> connect(attempt), "sluice-redis-connect");
                    connector.setDaemon(true);
                    connector.start();
                }
            }
            return connection;
        }
    }

    /** Any first command makes Redisson connect; this thread is the one it blocks. */
    private void connect(CompletableFuture<Void> attempt) {
        try {
            scripts.eval(RScript.Mode.READ_ONLY, PING, RScript.ReturnType.LONG);
            expiry.prime();
            connected = true;
            connectedOnce.complete(null);
            attempt.complete(null);
        } catch (RuntimeException e) {
            attempt.completeExceptionally(e);
        }
    }

    /** Asking starts another attempt when the last one failed (at most once a second), so polling sees Redis come up. */
    @Override
    public boolean connected() {
        if (!connected && !closed) connection();
        return connected;
    }

    @Override
    public CompletionStage<Void> firstConnection() {
        if (!connected) connection();
        return connectedOnce.copy();
    }

    /** Names a rate key in Redis: see {@link RateKeys}. */
    @Override
    public String rateKey(String prefix, String rule, Algorithm algorithm, Duration period, String hashedKey) {
        return RateKeys.name(prefix, rule, algorithm, period, hashedKey);
    }

    /** The client underneath, for applications that want Redisson's own objects beside Sluice's. */
    public RedissonClient client() {
        return redisson;
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        return whenConnected(() -> lanes.submit(List.of(r), DecisionScript.CONSUME)).thenApply(answers -> answers.get(0));
    }

    /** One script call for all of them: the algorithm's script run once per request, in order, inside Redis. */
    @Override
    public CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
        RateRequest first = requests.get(0);
        for (RateRequest r : requests) {
            if (!r.key().equals(first.key()) || r.algorithm() != first.algorithm()) {
                throw new IllegalArgumentException("one key and algorithm per call: " + first.key() + " and " + r.key());
            }
        }
        return whenConnected(() -> lanes.submit(requests, DecisionScript.CONSUME));
    }

    /**
     * The request and its prefetched permits in one unit of the key's lane: one script call, which decides the
     * request, then the run of permits (as many as fit); a log logs them at the hold's end, under one entry id that
     * {@link #returnPrefetched} removes them by; a token bucket and a window counter lend them under that id, and
     * forget the used-up stocks first, in the same script. The leaky bucket's pace takes nothing ahead (the rules
     * file refuses prefetch with it).
     */
    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        if (!Prefetch.supported(r, ahead)) {
            return tryConsume(r).thenApply(o -> Prefetch.none(r, o));
        }
        return stocks.prefetched(List.of(r), r.withCost(1), ahead, hold, StockCalls.stockId(), usedUp);
    }

    /** Permits alone, in the key's lane: the same unit without a request, forgetting the used-up stocks first. */
    @Override
    public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
        if (!Prefetch.supported(permit, ahead)) {
            return CompletableFuture.completedFuture(Prefetch.nothing(permit));
        }
        return stocks.prefetched(List.of(), permit, ahead, hold, StockCalls.stockId(), usedUp);
    }

    /**
     * For tests: whether decision calls go with an expiry ({@link CallExpiry}): a sample of Redis's time has landed.
     * Asks for one when it is due, as a decision call would (a sample too slow to use is tried again a second later).
     */
    boolean knowsRedisTime() {
        expiry.argument();
        return expiry.known();
    }

    /** For tests: the acquires waiting here for a permit (their first try found none), not answered yet. */
    int waiting() {
        return waiters.waiting();
    }

    /** For tests: {@code r} and a prefetch under Sluice's id {@code id}, as {@link #tryConsumeAndPrefetch} sends them. */
    CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold, String id) {
        return stocks.prefetched(List.of(r), r.withCost(1), ahead, hold, id, List.of());
    }

    /**
     * For tests: one attempt of the hand-back of a prefetch given up on ({@code permit}, up to {@code ahead}, under
     * {@code id}, sent at {@code sentAt} on this backend's clock), whichever reaches Redis first.
     */
    CompletionStage<?> giveUp(RateRequest permit, long ahead, Duration hold, String id, long sentAt) {
        return stocks.giveUp(permit, ahead, hold, id, sentAt);
    }

    /**
     * The last {@code unused} of the prefetched permits: the log's own entries removed (its used permits logged again at
     * their uses, in the same script), a bucket's tokens handed back, a window counter's permits off the counter of
     * their window, which answers what that credited.
     */
    @Override
    public CompletionStage<Long> returnPrefetched(Prefetch p, long unused, List<PrefetchUse> used) {
        return stocks.returnPrefetched(p, unused, used);
    }

    @Override
    public CompletionStage<RateUsage> peek(RateRequest r) {
        return whenConnected(() -> calls.peek(RateUsage.peekOf(r)));
    }

    @Override
    public CompletionStage<Void> forget(RateRequest r) {
        return whenConnected(() -> forget.call(r, calls.blocking(r.algorithm())));
    }

    @Override
    public CompletionStage<Void> refund(RateRequest r) {
        return refund(r, null);
    }

    /**
     * A log gives back the entry its decision was logged under (rate.lua's id) when {@code entry} names it; a window
     * counter, off the counter of the window its answer named, while that window still counts; a leaky bucket gives
     * back the slot whose end {@code entry} names while it is still the last one scheduled.
     */
    @Override
    public CompletionStage<Void> refund(RateRequest r, Entry entry) {
        CompletionStage<?> done = switch (r.algorithm()) {
            case TOKEN_BUCKET -> whenConnected(() -> lanes.submit(List.of(r), DecisionScript.REFUND));
            case FIXED_WINDOW, SLIDING_WINDOW -> refundWindow(r, entry);
            case SLIDING_LOG -> whenConnected(() -> refundLog.call(r.key(), r.cost(), entry));
            // A slot only by its end, and only while it is the last one scheduled.
            case LEAKY_BUCKET -> entry == null ? null : whenConnected(() -> undoSlot.call(r, Entry.as(Entry.SlotEnd.class, entry)));
        };
        return done == null ? CompletableFuture.failedFuture(new UnsupportedOperationException(r.algorithm() + " cannot refund"))
                : done.thenApply(ignored -> null);
    }

    /**
     * A window counter says whether the counter of the window {@code entry} names got the permits back: not when that
     * window counts no more (a counter below the cost, after lost state, gives back what it has and says the cost); a
     * sliding window credits what the key's remaining rose by (the script's second number).
     */
    @Override
    public CompletionStage<Long> refundCredited(RateRequest r, Entry entry) {
        return switch (r.algorithm()) {
            case FIXED_WINDOW -> refundWindow(r, entry).thenApply(back -> back.allowed() ? r.cost() : 0L);
            // The previous window weighs less: its refund raises the remaining by less than the cost, maybe not at all.
            case SLIDING_WINDOW -> refundWindow(r, entry).thenApply(back -> back.allowed() ? back.remaining() : 0L);
            default -> Refunding.super.refundCredited(r, entry);
        };
    }

    /** A window counter's refund, off the counter of the window {@code entry} names (null: the current one): its answer. */
    private CompletionStage<RateOutcome> refundWindow(RateRequest r, Entry entry) {
        return whenConnected(() -> lanes.submit(DecisionLanes.Unit.refund(r, DecisionScript.REFUND, entry)))
                .thenApply(answers -> answers.get(0));
    }

    /** The algorithm's own script in its charge mode: permits taken whatever is left. */
    @Override
    public CompletionStage<Void> charge(RateRequest r) {
        if (!r.algorithm().settleable()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(r.algorithm() + " cannot take permits past its limit"));
        }
        return whenConnected(() -> lanes.submit(List.of(r), DecisionScript.CHARGE)).thenApply(ignored -> null);
    }

    /**
     * For tests: several keys' decisions (each list one key's, in order) in exactly one script call, as a lane sends
     * them when they wait at the same moment.
     */
    List<CompletableFuture<List<RateOutcome>>> tryConsumeTogether(List<List<RateRequest>> perKey) {
        List<DecisionLanes.Unit> units = new ArrayList<>();
        for (List<RateRequest> requests : perKey) units.add(new DecisionLanes.Unit(requests, DecisionScript.CONSUME));
        calls.send(units);
        return units.stream().map(DecisionLanes.Unit::answers).toList();
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest r) {
        if (r.waitTime().isZero()) return whenConnected(() -> acquireNow(r)).thenApply(LeaseWaiters.Answer::outcome);
        // Known to the waiters from now, while still connecting: the engine may give up on it before the first try.
        // Each waiter tries under its own limit (its plan's) whenever a release may have left room for it.
        return waiters.tryThenAwait(r.key(), RedissonNames.wakeChannel(r.key()), r.limit(), r.waitTime().toMillis(),
                r.permitId(), () -> whenConnected(() -> acquireNow(r)), new WaitingTries(r));
    }

    /** A waiter's tries of the acquire script; a permit one took after the waiter's wait ran out is released. */
    private final class WaitingTries implements LeaseWaiters.Attempt {
        private final LeaseRequest request;

        WaitingTries(LeaseRequest request) {
            this.request = request;
        }

        @Override
        public CompletionStage<LeaseWaiters.Answer> tryNow() {
            return acquireNow(request);
        }

        @Override
        public void giveBack() {
            release(request, request.permitId());
        }
    }

    /** One try of the acquire script, under the request's limit and the permit id the engine chose. */
    private CompletionStage<LeaseWaiters.Answer> acquireNow(LeaseRequest r) {
        return acquire.call(r, clock.millis(), publishCommand());
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest r, String permitId) {
        return whenConnected(() -> renew.call(r, permitId, clock.millis()));
    }

    /**
     * Returns the permit; one not held (released already, expired, or whose acquire has not reached Redis yet) leaves
     * a tombstone for one lease, so that an acquire of that id arriving later takes nothing.
     */
    @Override
    public CompletionStage<Boolean> release(LeaseRequest r, String permitId) {
        // A release of the id a waiter here still waits under is the engine giving up on it: the waiter leaves.
        waiters.givenUp(r.key(), permitId);
        long now = clock.millis();
        return whenConnected(() -> release.call(r, permitId, now, publishCommand()));
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest r) {
        return whenConnected(() -> available.call(r, clock.millis()));
    }

    @Override
    public CompletionStage<Void> putOverride(String prefix, StoredOverride override, long nowMillis) {
        return whenConnected(() -> overridePut.call(prefix, override, nowMillis));
    }

    @Override
    public CompletionStage<Boolean> removeOverride(String prefix, String rule, String hashedKey) {
        return whenConnected(() -> overrideRemove.call(prefix, rule, hashedKey));
    }

    @Override
    public CompletionStage<Long> overridesVersion(String prefix) {
        return whenConnected(() -> overridesVersion.call(prefix));
    }

    @Override
    public CompletionStage<StoredOverrides> overrides(String prefix) {
        return whenConnected(() -> overridesRead.call(prefix));
    }

    /** Subscribes to a wake-up channel the way the scripts publish to it (sharded on a Redis 7 Cluster). */
    private CompletionStage<Runnable> subscribe(String channel, LongConsumer held) {
        RTopic topic = SPUBLISH.equals(publishCommand())
                ? redisson.getShardedTopic(channel, StringCodec.INSTANCE) : redisson.getTopic(channel, StringCodec.INSTANCE);
        return topic.addListenerAsync(String.class, (ch, message) -> held.accept(Long.parseLong(message)))
                .thenApply(id -> () -> topic.removeListenerAsync(id));
    }

    /**
     * How the scripts wake Redisson's waiting acquirers: the way Redisson's own semaphore does. On a Redis 7
     * Cluster Redisson subscribes them with {@code SSUBSCRIBE} (sharded pub/sub, detected when it connects),
     * and a plain {@code PUBLISH} never reaches a sharded subscriber; elsewhere it is {@code PUBLISH}. A client
     * that is not Redisson's own class cannot be asked: then the scripts send both.
     */
    private String publishCommand() {
        if (redisson instanceof Redisson r) {
            return r.getCommandExecutor().getConnectionManager().getSubscribeService().getPublishCommand().toLowerCase(Locale.ROOT);
        }
        return PUBLISH_BOTH;
    }

    @Override
    public CompletionStage<Long> serverTimeMillis() {
        // Not while connecting: the wait would count as round-trip time and skew the measurement.
        if (!connected) {
            connection();
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis yet"));
        }
        return serverTime.call();
    }

    /** Records this server in the sorted set {@code key} (one member per server, on Redis time) and counts the live ones. */
    @Override
    public CompletionStage<Integer> announce(String key, String serverId, Duration goneAfter) {
        return whenConnected(() -> announce.call(key, serverId, goneAfter));
    }

    @Override
    public void close() {
        closed = true;
        connectedOnce.completeExceptionally(new IllegalStateException("Sluice's Redis backend is closed"));
        if (ownsClient) redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
