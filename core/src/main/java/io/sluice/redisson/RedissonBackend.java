package io.sluice.redisson;

import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.CommonOptions;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.codec.StringCodec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Limits in Redis, in the data layout of Redisson's {@link RRateLimiter} (type {@code OVERALL}) and
 * {@link RPermitExpirableSemaphore}, so that Redisson's own objects of the same name read and change the
 * same state. Each decision is one Lua script, one round trip, answering everything the response headers
 * need (Redisson's {@code tryAcquire} answers only a boolean, and {@code availablePermits} would be a
 * second round trip). The scripts also initialise missing state, so a limiter lost to {@code FLUSHALL},
 * eviction or a failover heals on its next use instead of failing with "not initialized" or denying forever.
 *
 * <p>Scripts are never retried: a retried limiter script can count twice. Time comes from the injected
 * clock of this server, as Redisson's primitives do. Every key written gets a TTL. Thread-safe.
 *
 * <p>Redisson's lazy start connects on the first command <em>in the calling thread</em>, retrying for as
 * long as its configuration says (seconds with Redisson's defaults). So that no request thread ever waits
 * for a connection, the first connection is made on a thread of this backend's own; until it succeeds,
 * operations wait for it without blocking a thread (the caller's deadline bounds that wait), and a failed
 * attempt is retried at most once a second, on demand.
 */
public final class RedissonBackend implements LimiterBackend {
    private static final String RATE = script("rate.lua");
    private static final String ACQUIRE = script("acquire.lua");
    private static final String RENEW = script("renew.lua");
    private static final String RELEASE = script("release.lua");

    private final RedissonClient redisson;
    private final boolean ownsClient;
    private final Clock clock;
    private final Duration timeout;
    private final RScript scripts;
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
        this.redisson = redisson;
        this.ownsClient = ownsClient;
        this.clock = clock;
        this.timeout = timeout;
        this.scripts = redisson.getScript(OptionalOptions.defaults()
                .codec(StringCodec.INSTANCE).timeout(timeout).retryAttempts(0));
        connection();
    }

    private static final long RECONNECT_SPACING_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final String PING = "return 1";
    /** Tells the scripts to wake waiters with both PUBLISH and (where Redis has it) SPUBLISH. */
    private static final String PUBLISH_BOTH = "both";

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
        return whenConnected(() -> consume(r));
    }

    private CompletionStage<RateOutcome> consume(RateRequest r) {
        String name = r.key();
        long interval = r.period().toMillis();
        CompletionStage<List<Long>> result = scripts.evalAsync(name, RScript.Mode.READ_WRITE, RATE, RScript.ReturnType.LIST,
                List.<Object>of(name, suffix(name, "value"), suffix(name, "permits")),
                Long.toString(r.cost()), Long.toString(clock.millis()), randomId(),
                Long.toString(r.limit()), Long.toString(interval), Long.toString(interval));
        return result.thenApply(v -> new RateOutcome(v.get(0) == 1L, v.get(1), v.get(2), v.get(3)));
    }

    @Override
    public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest r) {
        return whenConnected(() -> acquire(r));
    }

    private CompletionStage<LeaseOutcome> acquire(LeaseRequest r) {
        String permitId = randomId();
        CompletionStage<LeaseOutcome> immediate = acquireNow(r, permitId);
        if (r.waitTime().isZero()) return immediate;
        return immediate.thenCompose(outcome -> {
            if (outcome.acquired()) return CompletableFuture.completedFuture(outcome);
            // Redisson's own waiting acquire sleeps on the semaphore's channel, woken by every release.
            RPermitExpirableSemaphore semaphore = semaphore(r.key(), r.waitTime().plus(timeout));
            return semaphore.tryAcquireAsync(r.waitTime().toMillis(), r.lease().toMillis(), TimeUnit.MILLISECONDS)
                    .thenCompose(id -> id != null
                            ? CompletableFuture.completedFuture(new LeaseOutcome(id, 0))
                            // The wait is over: one last try, so a permit freed at its very end is not missed.
                            : acquireNow(r, randomId()));
        });
    }

    private CompletionStage<LeaseOutcome> acquireNow(LeaseRequest r, String permitId) {
        String name = r.key();
        long now = clock.millis();
        CompletionStage<List<Long>> result = scripts.evalAsync(name, RScript.Mode.READ_WRITE, ACQUIRE, RScript.ReturnType.LIST,
                List.<Object>of(name, suffix(name, "timeout"), channel(name)),
                Integer.toString(r.limit()), Long.toString(now + r.lease().toMillis()), Long.toString(now), permitId,
                Long.toString(keyTtl(r)), publishCommand());
        return result.thenApply(v -> new LeaseOutcome(v.get(0) == 1L ? permitId : null, v.get(1).intValue()));
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest r, String permitId) {
        String name = r.key();
        return whenConnected(() -> scripts.<Long>evalAsync(name, RScript.Mode.READ_WRITE, RENEW, RScript.ReturnType.LONG,
                List.<Object>of(name, suffix(name, "timeout")),
                permitId, Long.toString(clock.millis() + r.lease().toMillis()), Long.toString(keyTtl(r))))
                .thenApply(v -> v == 1L);
    }

    @Override
    public CompletionStage<Boolean> release(LeaseRequest r, String permitId) {
        String name = r.key();
        return whenConnected(() -> scripts.<Long>evalAsync(name, RScript.Mode.READ_WRITE, RELEASE, RScript.ReturnType.LONG,
                List.<Object>of(name, suffix(name, "timeout"), channel(name)), permitId, Integer.toString(r.limit()),
                publishCommand()))
                .thenApply(v -> v == 1L);
    }

    @Override
    public CompletionStage<Integer> available(LeaseRequest r) {
        return whenConnected(() -> redisson.getKeys().countExistsAsync(r.key()).thenCompose(exists -> exists == 0
                ? CompletableFuture.completedFuture(r.limit())
                : semaphore(r.key(), timeout).availablePermitsAsync()));
    }

    private RPermitExpirableSemaphore semaphore(String name, Duration commandTimeout) {
        return redisson.getPermitExpirableSemaphore(CommonOptions.name(name).timeout(commandTimeout).retryAttempts(0));
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

    private static String randomId() {
        byte[] id = new byte[16];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().formatHex(id);
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
