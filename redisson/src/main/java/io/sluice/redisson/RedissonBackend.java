package io.sluice.redisson;

import io.sluice.spi.Algorithm;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.RequestRefusedException;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RTopic;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.redisson.connection.ConnectionManager;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.regex.Pattern;

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
public final class RedissonBackend implements LimiterBackend {
    /**
     * A decision script as it is (one request a call) and wrapped to decide several ({@link #batched}), with its
     * shape: arguments per request, numbers per answer, and the header {@code batch.lua} reads it by.
     */
    private record Decider(String one, String many, int arguments, int answerSize, List<Object> batchHeader) {
        /**
         * @param keys           keys per request
         * @param uniqueArgument which argument is unique to each request (a log entry's id), 0 for none
         * @param decidesRuns    whether the script decides a run of identical requests itself (reading and writing
         *                       its state once), where its decision costs several Redis commands
         */
        static Decider of(int arguments, int keys, int answerSize, int uniqueArgument, boolean decidesRuns,
                          String first, String... rest) {
            List<Object> header = List.of(Integer.toString(arguments), Integer.toString(uniqueArgument),
                    Integer.toString(keys), Integer.toString(answerSize), decidesRuns ? "1" : "0");
            return new Decider(join(first, rest), batched(first, rest), arguments, answerSize, header);
        }
    }

    /** Error codes that say something about Redis (memory, state, topology, access), not about one request. */
    private static final Pattern REDIS_CONDITION = Pattern.compile(
            "\\b(OOM|BUSY|READONLY|LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOPERM|NOSCRIPT|WRONGTYPE|CROSSSLOT|MOVED|ASK"
                    + "|EXECABORT|NOREPLICAS|MISCONF)\\b");
    /** Numbers in one answer of {@code rate.lua}, and of the scripts on Redis time. */
    private static final int LOG_ANSWER = 4;
    private static final int ANSWER = 6;
    /** Which of {@code rate.lua}'s arguments is unique to each request: the log entry's id. */
    private static final int LOG_ENTRY_ID = 3;
    /** Which of {@code rate.lua}'s arguments say how far after now its new entries count from, and a prefetch's size. */
    private static final int LOG_ENTRY_OFFSET = 7;
    private static final int LOG_PREFETCH = 8;
    /** Which of {@code token-bucket.lua}'s arguments are a prefetch's size, its id, and how long its stock is lent. */
    private static final int BUCKET_PREFETCH = 9;
    private static final int BUCKET_STOCK_ID = 10;
    private static final int BUCKET_LENT_FOR = 11;
    /** No prefetch id, nothing lent: a token bucket's plain decision. */
    private static final String NO_STOCK = "";
    /** The first character of a prefetch's id, which a request's (hexadecimal) never has. */
    static final String STOCK_ID_MARK = "s";
    private static final String NOT_LENT = "0";
    /**
     * How long after its hold a stock still counts as lent (a token bucket's), for its hand-back to arrive: past it,
     * the stock counts as used (a server that stopped hands nothing back).
     */
    static final long LENT_GRACE_MILLIS = Prefetch.RETURN_GRACE.toMillis();
    /**
     * How long a hand-back of a prefetch Sluice gave up on is remembered when it reached Redis first, so that the
     * prefetch, if Redis runs it after all, takes nothing; and how long and how often such a hand-back is retried.
     */
    static final long TOMBSTONE_MILLIS = 60_000;
    static final long CANCEL_RETRY_MILLIS = 500;
    static final int CANCEL_ATTEMPTS = 120;
    private static final Decider RATE = Decider.of(8, 3, LOG_ANSWER, LOG_ENTRY_ID, true, "rate.lua");
    private static final String ACQUIRE = script("wake.lua", "acquire.lua");
    private static final String RENEW = script("renew.lua");
    private static final String RELEASE = script("wake.lua", "release.lua");
    private static final String AVAILABLE = script("available.lua");
    private static final Decider TOKEN_BUCKET = Decider.of(11, 1, ANSWER, 0, true, "redis-time.lua", "token-bucket.lua");
    private static final Decider LEAKY_BUCKET = Decider.of(5, 1, ANSWER, 0, false, "redis-time.lua", "leaky-bucket.lua");
    private static final Decider FIXED_WINDOW = Decider.of(6, 1, ANSWER, 0, false, "redis-time.lua", "fixed-window.lua");
    private static final Decider SLIDING_WINDOW = Decider.of(6, 1, ANSWER, 0, false, "redis-time.lua", "sliding-window.lua");
    private static final String REFUND_LOG = script("refund-log.lua");
    private static final String RETURN_LOG = script("return-log.lua");
    private static final String CANCEL_LOG = script("cancel-log.lua");
    /** {@code rate.lua}'s offset for an entry logged now; the scripts' prefetch size of a decision that is none. */
    private static final String LOGGED_NOW = "0";
    private static final String NO_PREFETCH = "0";
    /**
     * How much longer than its window a sliding log lives in Redis under a test's clock ({@link #onCallerClock}), as
     * {@code redis-time.lua}'s slack does for the scripts on Redis time: Redis expires keys on its own real time, which
     * a test's clock does not follow (a run may spend seconds of real time at one instant of its own, and a log that
     * expired meanwhile would forget permits its window still counts).
     */
    static final long CALLER_TIME_KEEP_ALIVE_MILLIS = 60_000;
    /** The scripts' "use Redis TIME" argument: production never passes a time. */
    private static final String REDIS_TIME = "";
    private static final String CONSUME = "0";
    private static final String REFUND = "1";

    private final RedissonClient redisson;
    private final boolean ownsClient;
    private final Clock clock;
    private final boolean callerTime;
    private final Duration timeout;
    private final RScript scripts;
    private final DecisionLanes lanes;
    private final LeaseWaiters waiters;
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
                .codec(StringCodec.INSTANCE).timeout(timeout).retryAttempts(0));
        this.lanes = new DecisionLanes(slots(redisson), REFUND, this::send);
        this.waiters = new LeaseWaiters(this::subscribe, clock::millis);
        connection();
    }

    private static final long RECONNECT_SPACING_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final String PING = "return 1";
    /** Tells the scripts to wake waiters with both PUBLISH and (where Redis has it) SPUBLISH. */
    private static final String PUBLISH_BOTH = "both";
    private static final String SPUBLISH = "spublish";
    /** The sub-key of a semaphore's tombstones: permits released before their acquire arrived, until their lease ends. */
    private static final String RELEASED = "released";

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

    /** The client underneath, for applications that want Redisson's own objects beside Sluice's. */
    public RedissonClient client() {
        return redisson;
    }

    @Override
    public CompletionStage<RateOutcome> tryConsume(RateRequest r) {
        return whenConnected(() -> lanes.submit(List.of(r), CONSUME)).thenApply(answers -> answers.get(0));
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
        return whenConnected(() -> lanes.submit(requests, CONSUME));
    }

    /**
     * The request and its prefetched permits in one unit of the key's lane: one script call, which decides the
     * request, then the run of permits (as many as fit); a log logs them at the hold's end, under one entry id that
     * {@link #returnPrefetched} removes them by. The leaky bucket's pace and the two window counters take nothing
     * ahead (the rules file allows prefetch only with a log or a token bucket).
     */
    @Override
    public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold) {
        if (!Prefetch.supported(r, ahead)) {
            return LimiterBackend.super.tryConsumeAndPrefetch(r, ahead, hold);
        }
        return prefetched(List.of(r), r.withCost(1), ahead, hold, stockId());
    }

    /** Permits alone, in the key's lane: the same unit without a request. */
    @Override
    public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold) {
        if (!Prefetch.supported(permit, ahead)) {
            return LimiterBackend.super.prefetch(permit, ahead, hold);
        }
        return prefetched(List.of(), permit, ahead, hold, stockId());
    }

    /**
     * {@code requests} (the one request, or none) then up to {@code ahead} permits, as one unit of the key's lane.
     * The outcome is the request's, or the prefetch's own when there is none; what is left is the prefetch's answer.
     */
    private CompletionStage<Prefetch> prefetched(List<RateRequest> requests, RateRequest permit, long ahead, Duration hold, String id) {
        DecisionLanes.Ahead run = new DecisionLanes.Ahead(permit, ahead, hold.toMillis(), id, new AtomicLong(), new AtomicLong());
        DecisionLanes.Unit unit = new DecisionLanes.Unit(requests, CONSUME, run, new CompletableFuture<>());
        CompletionStage<Prefetch> answered = whenConnected(() -> lanes.submit(unit)).thenApply(answers -> {
            long taken = run.taken().get();
            RateOutcome prefetch = answers.get(answers.size() - 1);
            // The receipt: the stock's id (a log's entry, a bucket's loan) and its permits.
            String receipt = taken == 0 ? null : run.id() + ":" + taken;
            return new Prefetch(answers.get(0), permit, taken, prefetch.remaining(), receipt);
        });
        // No answer (a timeout, a lost connection) does not mean Redis took nothing: it may run the call later.
        answered.whenComplete((p, e) -> {
            if (e != null && run.sentAt().get() != 0) cancel(run, 1);
        });
        return answered;
    }

    /**
     * Hands back whatever the prefetch {@code run} took, its answer never having come: by its id, once, whether Redis
     * ran it already or runs it later (then it takes nothing). Retried while Redis cannot be reached.
     */
    private void cancel(DecisionLanes.Ahead run, int attempt) {
        cancelOnce(run).whenComplete((v, e) -> {
            if (e == null || closed || attempt >= CANCEL_ATTEMPTS) return;
            CompletableFuture.runAsync(() -> cancel(run, attempt + 1),
                    CompletableFuture.delayedExecutor(CANCEL_RETRY_MILLIS, TimeUnit.MILLISECONDS));
        });
    }

    /** One attempt of {@link #cancel}. */
    private CompletionStage<?> cancelOnce(DecisionLanes.Ahead run) {
        RateRequest r = run.request();
        CompletionStage<?> sent;
        try {
            if (r.algorithm() == Algorithm.TOKEN_BUCKET) {
                sent = handBackLent(r.withCost(run.count()), run.id());
            } else {
                String countsFrom = Long.toString(run.sentAt().get() + run.offsetMillis());
                sent = whenConnected(() -> scripts.<Long>evalAsync(r.key(), RScript.Mode.READ_WRITE, CANCEL_LOG,
                        RScript.ReturnType.LONG, List.<Object>of(r.key(), suffix(r.key(), "value"), suffix(r.key(), "permits")),
                        run.id(), countsFrom, Long.toString(clock.millis()), Long.toString(TOMBSTONE_MILLIS)));
            }
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent;
    }

    /** For tests: {@code r} and a prefetch under Sluice's id {@code id}, as {@link #tryConsumeAndPrefetch} sends them. */
    CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest r, long ahead, Duration hold, String id) {
        return prefetched(List.of(r), r.withCost(1), ahead, hold, id);
    }

    /**
     * For tests: one attempt of the hand-back of a prefetch given up on ({@code permit}, up to {@code ahead}, under
     * {@code id}, sent at {@code sentAt} on this backend's clock), whichever reaches Redis first.
     */
    CompletionStage<?> giveUp(RateRequest permit, long ahead, Duration hold, String id, long sentAt) {
        return cancelOnce(new DecisionLanes.Ahead(permit, ahead, hold.toMillis(), id, new AtomicLong(), new AtomicLong(sentAt)));
    }

    /**
     * A token bucket's stock {@code id} handed back: up to {@code r.cost()} of its tokens return to the bucket (the
     * rest were used), and it is no longer lent; a tombstone when Redis has not lent it (yet).
     */
    private CompletionStage<?> handBackLent(RateRequest r, String id) {
        Object[] argv = new Object[TOKEN_BUCKET.arguments()];
        arguments(r, REFUND, Long.toString(clock.millis()), argv, 0);
        argv[BUCKET_STOCK_ID - 1] = id;
        argv[BUCKET_LENT_FOR - 1] = Long.toString(TOMBSTONE_MILLIS);
        return whenConnected(() -> scripts.<List<Object>>evalAsync(r.key(), RScript.Mode.READ_WRITE, TOKEN_BUCKET.one(),
                RScript.ReturnType.LIST, keys(r), argv));
    }

    /** The last {@code unused} of the prefetched permits: the log's own entries removed, a bucket's tokens handed back. */
    @Override
    public CompletionStage<Void> returnPrefetched(Prefetch p, long unused) {
        if (!p.handsBack(unused)) return CompletableFuture.completedFuture(null);
        RateRequest r = p.request();
        int colon = p.receipt().lastIndexOf(':');
        String id = p.receipt().substring(0, colon);
        if (r.algorithm() == Algorithm.TOKEN_BUCKET) return handBackLent(r.withCost(unused), id).thenApply(ignored -> null);
        String permits = p.receipt().substring(colon + 1);
        return whenConnected(() -> scripts.<Long>evalAsync(r.key(), RScript.Mode.READ_WRITE, RETURN_LOG,
                RScript.ReturnType.LONG, List.<Object>of(suffix(r.key(), "value"), suffix(r.key(), "permits")),
                id, permits, Long.toString(unused)))
                .thenApply(ignored -> null);
    }

    @Override
    public CompletionStage<Void> refund(RateRequest r) {
        CompletionStage<?> done = switch (r.algorithm()) {
            case TOKEN_BUCKET, FIXED_WINDOW, SLIDING_WINDOW -> whenConnected(() -> lanes.submit(List.of(r), REFUND));
            case SLIDING_LOG -> whenConnected(() -> scripts.<Long>evalAsync(r.key(), RScript.Mode.READ_WRITE, REFUND_LOG,
                    RScript.ReturnType.LONG, List.<Object>of(suffix(r.key(), "value"), suffix(r.key(), "permits")),
                    Long.toString(r.cost())));
            case LEAKY_BUCKET -> null;
        };
        return done == null ? LimiterBackend.super.refund(r) : done.thenApply(ignored -> null);
    }

    /**
     * For tests: several keys' decisions (each list one key's, in order) in exactly one script call, as a lane sends
     * them when they wait at the same moment.
     */
    List<CompletableFuture<List<RateOutcome>>> tryConsumeTogether(List<List<RateRequest>> perKey) {
        List<DecisionLanes.Unit> units = new ArrayList<>();
        for (List<RateRequest> requests : perKey) units.add(new DecisionLanes.Unit(requests, CONSUME));
        send(units);
        return units.stream().map(DecisionLanes.Unit::answers).toList();
    }

    /**
     * One lane's decisions (one key's, or several keys' of one slot) in one script call. A lone request runs the
     * script as it is; more run it wrapped by {@code batch.lua}, which takes runs of identical requests (a hot key's
     * burst) as their arguments once and a count. Each unit gets its answers, or its failure alone when a decision
     * of it failed inside Redis; the stage fails when the call itself did.
     */
    private CompletionStage<Void> send(List<DecisionLanes.Unit> units) {
        RateRequest first = units.get(0).first();
        Decider decider = decider(first.algorithm());
        int size = decider.arguments();
        String now = Long.toString(clock.millis());
        boolean alone = units.size() == 1 && units.get(0).ahead() == null && units.get(0).requests().size() == 1;
        Object[] argv;
        List<Object> keys;
        if (alone) {
            argv = new Object[size];
            arguments(first, units.get(0).mode(), now, argv, 0);
            keys = keys(first);
        } else {
            keys = new ArrayList<>();
            List<Object> args = new ArrayList<>(decider.batchHeader().size() + units.size() * (2 + size));
            // A log takes the caller's time: one time for the whole call, as calls at one instant (batch.lua then
            // answers a repeated rejection without walking the log again).
            args.addAll(decider.batchHeader());
            Object[] one = new Object[size];
            for (int u = 0; u < units.size(); u++) {
                DecisionLanes.Unit unit = units.get(u);
                List<RateRequest> requests = unit.requests();
                keys.addAll(keys(unit.first()));
                for (int i = 0, run; i < requests.size(); i += run) {
                    RateRequest r = requests.get(i);
                    run = 1;
                    while (i + run < requests.size() && requests.get(i + run).equals(r)) run++;
                    args.add(Integer.toString(u + 1));
                    args.add(Integer.toString(run));
                    arguments(r, unit.mode(), now, one, 0);
                    args.addAll(Arrays.asList(one));
                }
                DecisionLanes.Ahead ahead = unit.ahead();
                if (ahead != null) {
                    // One decision for batch.lua: the script takes up to the count itself and answers once.
                    args.add(Integer.toString(u + 1));
                    args.add("1");
                    arguments(ahead.request(), CONSUME, now, one, 0);
                    String count = Long.toString(ahead.count());
                    if (ahead.request().algorithm() == Algorithm.SLIDING_LOG) {
                        one[LOG_ENTRY_ID - 1] = ahead.id();
                        one[LOG_ENTRY_OFFSET - 1] = Long.toString(ahead.offsetMillis());
                        one[LOG_PREFETCH - 1] = count;
                    } else {
                        one[BUCKET_PREFETCH - 1] = count;
                        one[BUCKET_STOCK_ID - 1] = ahead.id();
                        one[BUCKET_LENT_FOR - 1] = Long.toString(ahead.offsetMillis() + LENT_GRACE_MILLIS);
                    }
                    ahead.sentAt().set(Long.parseLong(now));
                    args.addAll(Arrays.asList(one));
                }
            }
            argv = args.toArray();
        }
        CompletionStage<List<Object>> result = scripts.evalAsync(first.key(), RScript.Mode.READ_WRITE,
                alone ? decider.one() : decider.many(), RScript.ReturnType.LIST, keys, argv);
        CompletableFuture<Void> ended = new CompletableFuture<>();
        result.whenComplete((v, e) -> {
            if (e != null) {
                Throwable failure = refusedRequest(first.key(), e);
                for (DecisionLanes.Unit u : units) u.answers().completeExceptionally(failure);
                // Redis answered a request it refused: the lane's next call goes as after any answer.
                if (failure instanceof RequestRefusedException) ended.complete(null);
                else ended.completeExceptionally(e);
                return;
            }
            // The lane's next call goes first: Redis works on it while this thread hands these answers out.
            ended.complete(null);
            try {
                answer(units, v, decider.answerSize());
            } catch (RuntimeException unexpected) {
                // An answer of another shape (a proxy in front of Redis, a script of another version): no caller waits for ever.
                for (DecisionLanes.Unit u : units) u.answers().completeExceptionally(unexpected);
            }
        });
        return ended;
    }

    /** Each unit's answers from one call's flattened answers, or its failure when a decision of it failed in Redis. */
    private static void answer(List<DecisionLanes.Unit> units, List<Object> v, int step) {
        int at = 0;
        for (DecisionLanes.Unit u : units) {
            List<RateOutcome> answers = new ArrayList<>(u.answerCount());
            String failure = null;
            for (int i = 0; i < u.answerCount(); i++) {
                boolean prefetch = i == u.requests().size();
                RateRequest r = prefetch ? u.ahead().request() : u.requests().get(i);
                if (v.get(at) instanceof String message) {
                    failure = message;
                } else if (failure == null && prefetch) {
                    // A prefetch answers how many it took where a decision answers whether it was allowed.
                    long taken = number(v, at);
                    u.ahead().taken().set(taken);
                    answers.add(new RateOutcome(taken > 0, number(v, at + 1), number(v, at + 2), number(v, at + 3)));
                } else if (failure == null) {
                    answers.add(outcome(r, v, at));
                }
                at += step;
            }
            if (failure == null) u.answers().complete(answers);
            else if (causedByRequest(failure)) u.answers().completeExceptionally(refused(u.first().key(), failure));
            else u.answers().completeExceptionally(new RedisException("rate script failed on " + u.first().key() + ": " + failure));
        }
    }

    /**
     * Whether a decision script's error is one its own request caused: Redis's generic {@code ERR} (a number it cannot
     * take, such as a TTL out of range) or a Lua runtime error. An error with a code of its own ({@code OOM},
     * {@code BUSY}, {@code READONLY}, {@code LOADING}, {@code NOSCRIPT}, {@code CLUSTERDOWN}, {@code WRONGTYPE},
     * {@code NOPERM}...) or about permissions says something about Redis, not about the request.
     */
    static boolean causedByRequest(String error) {
        String e = error.strip();
        // Redis 6 wraps any error raised in a script in "ERR Error running script ...": look for the codes inside too.
        if (REDIS_CONDITION.matcher(e).find() || e.contains("permission") || e.contains("can't run this command")) return false;
        return e.startsWith("ERR ") || e.startsWith("user_script:") || e.startsWith("@user_script");
    }

    /**
     * A failed script call as the caller sees it: {@link RequestRefusedException} when Redis answered with an error
     * the script's own request caused while it ran (the error names the script), else the failure as it is.
     */
    private static Throwable refusedRequest(String key, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        String message = cause.getMessage();
        if (cause.getClass() != RedisException.class || message == null || !message.contains("script")) return e;
        return causedByRequest(message) ? refused(key, message) : e;
    }

    /** The request's error, with Redis's message up to where Redisson adds the connection and the arguments. */
    private static RequestRefusedException refused(String key, String error) {
        int end = error.indexOf(". channel:");
        return new RequestRefusedException("rate script refused a request on " + key + ": "
                + (end < 0 ? error : error.substring(0, end)).strip());
    }

    /** A decision's keys: a log's three (Redisson's layout), the other algorithms' one. */
    private static List<Object> keys(RateRequest r) {
        String name = r.key();
        return r.algorithm() == Algorithm.SLIDING_LOG ? List.of(name, suffix(name, "value"), suffix(name, "permits")) : List.of(name);
    }

    private static Decider decider(Algorithm algorithm) {
        return switch (algorithm) {
            case SLIDING_LOG -> RATE;
            case TOKEN_BUCKET -> TOKEN_BUCKET;
            case LEAKY_BUCKET -> LEAKY_BUCKET;
            case FIXED_WINDOW -> FIXED_WINDOW;
            case SLIDING_WINDOW -> SLIDING_WINDOW;
        };
    }

    /**
     * One request's arguments, written into {@code argv} from {@code at}. The scripts on Redis time take now (or
     * Redis TIME) and the period first; {@code rate.lua} takes the caller's clock, as Redisson's limiter does.
     */
    private void arguments(RateRequest r, String mode, String now, Object[] argv, int at) {
        if (r.algorithm() == Algorithm.SLIDING_LOG) {
            long interval = r.period().toMillis();
            long keepAlive = callerTime ? interval + CALLER_TIME_KEEP_ALIVE_MILLIS : interval;
            // Soft or elastic: the log counts up to the effective limit; the answer speaks of the nominal one.
            long limit = r.overage() ? r.effectiveLimit() : r.limit();
            put(argv, at, Long.toString(r.cost()), now, randomId(),
                    Long.toString(limit), Long.toString(interval), Long.toString(keepAlive), LOGGED_NOW, NO_PREFETCH);
            return;
        }
        argv[at] = callerTime ? now : REDIS_TIME;
        argv[at + 1] = Long.toString(r.period().toMillis());
        switch (r.algorithm()) {
            case TOKEN_BUCKET -> put(argv, at + 2, Long.toString(r.limit()), Long.toString(r.effectiveLimit()),
                    Long.toString(r.burst()), Long.toString(r.effectiveBurst()), Long.toString(r.cost()), mode, NO_PREFETCH,
                    NO_STOCK, NOT_LENT);
            case LEAKY_BUCKET -> put(argv, at + 2, Long.toString(r.effectiveLimit()), Long.toString(r.queue()),
                    Long.toString(r.cost()));
            default -> put(argv, at + 2, Long.toString(r.limit()), Long.toString(r.effectiveLimit()),
                    Long.toString(r.cost()), mode);
        }
    }

    private static void put(Object[] argv, int at, String... values) {
        System.arraycopy(values, 0, argv, at, values.length);
    }

    /** The answer of request {@code r}, at {@code at} in the flattened answers. */
    private static RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        if (r.algorithm() != Algorithm.SLIDING_LOG) {
            return new RateOutcome(number(v, at) == 1L, number(v, at + 1), number(v, at + 2), number(v, at + 3),
                    number(v, at + 4), number(v, at + 5) == 1L);
        }
        RateOutcome o = new RateOutcome(number(v, at) == 1L, number(v, at + 1), number(v, at + 2), number(v, at + 3));
        if (r.overage()) {
            long extra = r.effectiveLimit() - r.limit();
            o = new RateOutcome(o.allowed(), Math.max(0, o.remaining() - extra), o.resetMillis(), o.retryAfterMillis(),
                    0, o.allowed() && o.remaining() < extra);
        }
        return neverFits(r, o);
    }

    private static long number(List<Object> v, int at) {
        return (Long) v.get(at);
    }

    /** A log never holds more than its limit: a cost above it can never fit (the other scripts say so themselves). */
    static RateOutcome neverFits(RateRequest r, RateOutcome o) {
        if (o.allowed() || r.cost() <= r.effectiveLimit()) return o;
        return new RateOutcome(false, o.remaining(), o.resetMillis(), RateOutcome.NEVER_FITS, 0, false);
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest r) {
        return whenConnected(() -> acquire(r));
    }

    private CompletionStage<LeaseOutcome> acquire(LeaseRequest r) {
        CompletionStage<LeaseWaiters.Answer> immediate = acquireNow(r);
        if (r.waitTime().isZero()) return immediate.thenApply(LeaseWaiters.Answer::outcome);
        return immediate.thenCompose(answer -> answer.outcome().acquired()
                ? CompletableFuture.completedFuture(answer.outcome())
                // Each waiter tries under its own limit (its plan's) whenever a release may have left room for it.
                : waiters.await(r.key(), wakeChannel(r.key()), r.limit(), r.waitTime().toMillis(), () -> acquireNow(r)));
    }

    /** One try of the acquire script, under the request's limit and the permit id the engine chose. */
    private CompletionStage<LeaseWaiters.Answer> acquireNow(LeaseRequest r) {
        String name = r.key();
        String permitId = r.permitId();
        long now = clock.millis();
        CompletionStage<List<Long>> result = scripts.evalAsync(name, RScript.Mode.READ_WRITE, ACQUIRE, RScript.ReturnType.LIST,
                List.<Object>of(name, suffix(name, "timeout"), channel(name), suffix(name, RELEASED), wakeChannel(name)),
                Integer.toString(r.limit()), Long.toString(now + r.lease().toMillis()), Long.toString(now), permitId,
                Long.toString(keyTtl(r)), publishCommand());
        return result.thenApply(v -> new LeaseWaiters.Answer(
                new LeaseOutcome(v.get(0) == 1L ? permitId : null, v.get(1).intValue()), v.get(2)));
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest r, String permitId) {
        String name = r.key();
        return whenConnected(() -> scripts.<Long>evalAsync(name, RScript.Mode.READ_WRITE, RENEW, RScript.ReturnType.LONG,
                List.<Object>of(name, suffix(name, "timeout")),
                permitId, Long.toString(clock.millis() + r.lease().toMillis()), Long.toString(keyTtl(r))))
                .thenApply(v -> v == 1L);
    }

    /**
     * Returns the permit; one not held (released already, expired, or whose acquire has not reached Redis yet) leaves
     * a tombstone for one lease, so that an acquire of that id arriving later takes nothing.
     */
    @Override
    public CompletionStage<Boolean> release(LeaseRequest r, String permitId) {
        String name = r.key();
        long now = clock.millis();
        long lease = Math.min(r.lease().toMillis(), Long.MAX_VALUE / 8);
        return whenConnected(() -> scripts.<Long>evalAsync(name, RScript.Mode.READ_WRITE, RELEASE, RScript.ReturnType.LONG,
                List.<Object>of(name, suffix(name, "timeout"), channel(name), suffix(name, RELEASED), wakeChannel(name)),
                permitId, Integer.toString(r.limit()), publishCommand(), Long.toString(now + lease), Long.toString(now),
                Long.toString(lease)))
                .thenApply(v -> v == 1L);
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest r) {
        String name = r.key();
        return whenConnected(() -> scripts.<Long>evalAsync(name, RScript.Mode.READ_ONLY, AVAILABLE, RScript.ReturnType.LONG,
                List.<Object>of(suffix(name, "timeout")), Integer.toString(r.limit()), Long.toString(clock.millis())))
                .thenApply(Long::intValue);
    }

    /** Idle semaphores vanish; live ones are kept alive by every acquire and renewal (at a third of the lease). */
    private static long keyTtl(LeaseRequest r) {
        long lease = Math.min(r.lease().toMillis(), Long.MAX_VALUE / 8);
        long wait = Math.min(r.waitTime().toMillis(), Long.MAX_VALUE / 8);
        return Math.max(2 * lease, 10_000L) + wait;
    }

    /** Redisson's naming of an object's sub-keys: {@code {name}:suffix}, in the same cluster slot as {@code name}. */
    static String suffix(String name, String suffix) {
        return "{" + name + "}:" + suffix;
    }

    /** The channel Redisson's waiting acquirers listen on. */
    static String channel(String name) {
        return "redisson_sc:{" + name + "}";
    }

    /**
     * The channel Sluice's waiting acquirers listen on: the leases still held, after a release or a reclaimed lease.
     * Named under Redisson's channel of the semaphore so that an ACL written for that one (documented) covers it.
     */
    static String wakeChannel(String name) {
        return channel(name) + ":held";
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

    /** A prefetch's id: marked, so that {@code refund-log.lua} never takes a stock's entry for a request's. */
    static String stockId() {
        return STOCK_ID_MARK + randomId();
    }

    private static String randomId() {
        byte[] id = new byte[16];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /**
     * The files of a script, one after another: Lua scripts cannot include each other, so shared openings
     * ({@code redis-time.lua}: Redis TIME or a test's own time; {@code wake.lua}: waking waiters) are prepended.
     */
    private static String script(String first, String... rest) {
        return join(first, rest);
    }

    /**
     * A decision script that decides several requests for its key in one call: its files wrapped in one Lua
     * function, called by {@code batch.lua} once per request. The scripts' own text stays as it is.
     */
    private static String batched(String first, String... rest) {
        return "local function decide(KEYS, ARGV)\n" + join(first, rest) + "\nend\n" + script("batch.lua");
    }

    private static String join(String first, String... rest) {
        StringBuilder all = new StringBuilder(script(first));
        for (String file : rest) all.append(script(file));
        return all.toString();
    }

    private static String script(String file) {
        try (InputStream in = RedissonBackend.class.getResourceAsStream(file)) {
            if (in == null) throw new IllegalStateException("missing script " + file);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public CompletionStage<Long> serverTimeMillis() {
        // Not while connecting: the wait would count as round-trip time and skew the measurement.
        if (!connected) {
            connection();
            return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis yet"));
        }
        return scripts.evalAsync(RScript.Mode.READ_ONLY,
                "local t = redis.call('TIME'); return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
                RScript.ReturnType.LONG);
    }

    @Override
    public void close() {
        closed = true;
        connectedOnce.completeExceptionally(new IllegalStateException("Sluice's Redis backend is closed"));
        if (ownsClient) redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
