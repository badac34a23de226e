package io.sluice.redisson;

import io.sluice.spi.BackendContract;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The backend contract against a real redis-server (6.2 and 7), plus what only Redis can get wrong. */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class RedissonBackendTest extends BackendContract {
    private static RedissonClient redisson;

    @Parameter
    RedisVersion version;

    @BeforeParameterizedClassInvocation
    static void connect(RedisVersion version) {
        Config config = new Config();
        config.useSingleServer().setAddress(TestRedis.address(version));
        redisson = Redisson.create(config);
    }

    @AfterParameterizedClassInvocation
    static void disconnect() {
        if (redisson != null) redisson.shutdown();
        redisson = null;
    }

    @Override
    protected LimiterBackend backend(MutableClock clock) {
        // The contract moves time: the algorithms on Redis TIME take this clock's instead (RedisTimeTest runs them on TIME).
        return RedissonBackend.onCallerClock(redisson, clock, Duration.ofSeconds(5));
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    /** Pins the data layout: if a Redisson upgrade changes it, Redisson's own limiter disagrees with ours. */
    @Test
    void sharesStateWithRedissonsOwnRateLimiter() {
        RateRequest r = new RateRequest(key("interop-rate"), 10, Duration.ofMinutes(1), 1);
        for (int i = 0; i < 3; i++) consume(r);
        RRateLimiter limiter = redisson.getRateLimiter(r.key());
        assertThat(limiter.getConfig().getRate()).isEqualTo(10);
        assertThat(limiter.getConfig().getRateInterval()).isEqualTo(60_000);
        assertThat(limiter.availablePermits()).isEqualTo(7);
        assertThat(limiter.tryAcquire()).isTrue();
        assertThat(consume(r).remaining()).isEqualTo(5);
    }

    @Test
    void sharesStateWithRedissonsOwnSemaphore() throws InterruptedException {
        LeaseRequest r = new LeaseRequest(key("interop-sem"), 3, Duration.ofSeconds(30), Duration.ZERO);
        LeaseOutcome ours = acquire(r);
        RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(r.key());
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        String theirs = semaphore.tryAcquire(30, TimeUnit.SECONDS);
        assertThat(theirs).isNotNull();
        assertThat(acquire(r).available()).isZero();
        assertThat(semaphore.tryRelease(ours.permitId())).isTrue();
        assertThat(backend.release(r, theirs).toCompletableFuture().join()).isTrue();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
    }

    /** Decisions run by SHA-1: a Redis that lost its scripts (restart, SCRIPT FLUSH) is sent their text once. */
    @Test
    void decidesOnAfterTheScriptCacheIsFlushed() {
        RateRequest rate = new RateRequest(key("script-flush"), 3, Duration.ofMinutes(1), 1);
        assertThat(consume(rate).remaining()).isEqualTo(2);
        redisson.getScript().scriptFlush();
        RateOutcome afterFlush = consume(rate);
        assertThat(afterFlush.allowed()).isTrue();
        assertThat(afterFlush.remaining()).isEqualTo(1);
        assertThat(consume(rate).remaining()).isZero();
        assertThat(consume(rate).allowed()).isFalse();
    }

    @Test
    void healsAfterFlushAll() {
        RateRequest rate = new RateRequest(key("flush-rate"), 2, Duration.ofMinutes(1), 1);
        LeaseRequest lease = new LeaseRequest(key("flush-sem"), 1, Duration.ofSeconds(30), Duration.ZERO);
        consume(rate);
        consume(rate);
        assertThat(consume(rate).allowed()).isFalse();
        assertThat(acquire(lease).acquired()).isTrue();
        assertThat(acquire(lease).acquired()).isFalse();

        redisson.getKeys().flushall();

        RateOutcome afterFlush = consume(rate);
        assertThat(afterFlush.allowed()).isTrue();
        assertThat(afterFlush.remaining()).isEqualTo(1);
        LeaseOutcome healed = acquire(lease);
        assertThat(healed.acquired()).isTrue();
        assertThat(acquire(lease).acquired()).isFalse();
        assertThat(redisson.getRateLimiter(rate.key()).availablePermits()).isEqualTo(1);
    }

    @Test
    void aLostCounterIsRebuiltFromTheLogNotReset() {
        RateRequest r = new RateRequest(key("lost-counter"), 3, Duration.ofMinutes(1), 1);
        consume(r);
        consume(r);
        redisson.getBucket("{" + r.key() + "}:value").delete();
        RateOutcome o = consume(r);
        assertThat(o.allowed()).isTrue();
        assertThat(o.remaining()).isZero();
        assertThat(consume(r).allowed()).isFalse();
    }

    @Test
    void aChangedRateTakesEffectOnTheSameKeyAndKeepsTheUsage() {
        RateRequest old = new RateRequest(key("changed"), 2, Duration.ofMinutes(1), 1);
        consume(old);
        consume(old);
        assertThat(consume(old).allowed()).isFalse();
        RateRequest edited = new RateRequest(key("changed"), 5, Duration.ofMinutes(1), 1);
        RateOutcome o = consume(edited);
        assertThat(o.allowed()).isTrue();
        assertThat(o.remaining()).isEqualTo(2);
        RRateLimiter limiter = redisson.getRateLimiter(edited.key());
        assertThat(limiter.getConfig().getRate()).isEqualTo(5);
        // Redisson's own limiter reads the rescaled state: 3 used of 5.
        assertThat(limiter.availablePermits()).isEqualTo(2);
    }

    /** A limit lowered under the usage leaves the counter below 0: Redisson's own limiter refuses too. */
    @Test
    void aLoweredRateIsHonouredByRedissonsOwnLimiter() {
        RateRequest old = new RateRequest(key("lowered"), 10, Duration.ofMinutes(1), 1);
        for (int i = 0; i < 8; i++) consume(old);
        RateOutcome o = consume(new RateRequest(old.key(), 5, Duration.ofMinutes(1), 1));
        assertThat(o.allowed()).isFalse();
        assertThat(o.remaining()).isZero();
        assertThat(redisson.getRateLimiter(old.key()).tryAcquire()).isFalse();
    }

    @Test
    void aChangedPeriodStartsAFreshLog() {
        RateRequest old = new RateRequest(key("period"), 2, Duration.ofMinutes(1), 1);
        consume(old);
        consume(old);
        RateOutcome o = consume(new RateRequest(old.key(), 2, Duration.ofMinutes(2), 1));
        assertThat(o.allowed()).isTrue();
        assertThat(o.remaining()).isEqualTo(1);
    }

    @Test
    void everyKeyHasATtlAndIdleKeysExpire() {
        RateRequest rate = new RateRequest(key("ttl-rate"), 5, Duration.ofSeconds(1), 1);
        LeaseRequest lease = new LeaseRequest(key("ttl-sem"), 2, Duration.ofSeconds(1), Duration.ZERO);
        // Production's lifetimes: a test's clock keeps a log a minute longer (see the test after this one).
        try (RedissonBackend onServerClock = new RedissonBackend(redisson, false, Clock.systemUTC(), Duration.ofSeconds(5))) {
            onServerClock.tryConsume(rate).toCompletableFuture().join();
        }
        LeaseOutcome held = acquire(lease);
        String[] keys = {rate.key(), "{" + rate.key() + "}:value", "{" + rate.key() + "}:permits",
                lease.key(), "{" + lease.key() + "}:timeout"};
        for (String k : keys) {
            long ttl = redisson.getKeys().remainTimeToLive(k);
            assertThat(ttl).as("TTL of %s", k).isPositive();
        }
        // Rate state lives one period after its last use, plus at most an eighth (TTLs are renewed lazily).
        for (int i = 0; i < 3; i++) {
            assertThat(redisson.getKeys().remainTimeToLive(keys[i])).as("TTL of %s", keys[i]).isBetween(900L, 1_126L);
        }
        backend.release(lease, held.permitId()).toCompletableFuture().join();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(redisson.getKeys().countExists(rate.key(), "{" + rate.key() + "}:value",
                        "{" + rate.key() + "}:permits")).isZero());
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertThat(redisson.getKeys().countExists(lease.key(), "{" + lease.key() + "}:timeout")).isZero());
    }

    /**
     * On a test's clock a log outlives its window by a minute of real time: Redis expires keys on its own time, which
     * a test's clock does not follow (seed 1 of EngineMatchesModelTest lost a log that way; SlidingLogOnTestTimeTest).
     */
    @Test
    void onATestsClockALogOutlivesRealTimeByAMinute() {
        RateRequest rate = new RateRequest(key("ttl-test-time"), 5, Duration.ofSeconds(1), 1);
        consume(rate);
        for (String k : List.of(rate.key(), "{" + rate.key() + "}:value", "{" + rate.key() + "}:permits")) {
            assertThat(redisson.getKeys().remainTimeToLive(k)).as("TTL of %s", k)
                    .isGreaterThan(RedissonBackend.CALLER_TIME_KEEP_ALIVE_MILLIS);
        }
    }

    @Test
    void aWaitingAcquireGetsThePermitReleasedMeanwhile() {
        LeaseRequest r = new LeaseRequest(key("wait"), 1, Duration.ofSeconds(30), Duration.ofSeconds(5));
        LeaseOutcome holder = acquire(r);
        var waiting = backend.tryAcquire(r).toCompletableFuture();
        assertThat(waiting).isNotDone();
        backend.release(r, holder.permitId()).toCompletableFuture().join();
        LeaseOutcome got = waiting.orTimeout(5, TimeUnit.SECONDS).join();
        assertThat(got.acquired()).isTrue();
        assertThat(backend.release(r, got.permitId()).toCompletableFuture().join()).isTrue();
    }

    /**
     * One semaphore, a limit per plan: a waiter is judged by its own limit and woken by a release under another. A
     * waiter under 1 stays waiting while 2 of a limit of 4 are held; a waiter under 6 behind 6 held is woken by a
     * release under a limit of 1 (which leaves no free count under that limit), long before its minute of waiting
     * ends.
     */
    @Test
    void aWaiterIsJudgedByItsOwnLimitAndWokenByAReleaseUnderAnother() {
        Duration lease = Duration.ofSeconds(30);
        Duration wait = Duration.ofMinutes(1);
        LeaseRequest four = new LeaseRequest(key("plans-wait"), 4, lease, Duration.ZERO);
        List<String> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) held.add(acquire(four).permitId());
        var free = backend.tryAcquire(new LeaseRequest(four.key(), 1, lease, Duration.ofSeconds(2))).toCompletableFuture();
        backend.release(four, held.remove(0)).toCompletableFuture().join();
        assertThat(free.orTimeout(15, TimeUnit.SECONDS).join().acquired()).as("a waiter under 1 with 2 held").isFalse();
        for (String id : held) backend.release(four, id).toCompletableFuture().join();

        LeaseRequest six = new LeaseRequest(key("plans-wake"), 6, lease, Duration.ZERO);
        List<String> pro = new ArrayList<>();
        for (int i = 0; i < 6; i++) pro.add(acquire(six).permitId());
        var waiter = backend.tryAcquire(new LeaseRequest(six.key(), 6, lease, wait)).toCompletableFuture();
        LeaseRequest one = new LeaseRequest(six.key(), 1, lease, Duration.ZERO);
        backend.release(one, pro.remove(0)).toCompletableFuture().join();
        LeaseOutcome got = waiter.orTimeout(15, TimeUnit.SECONDS).join();
        assertThat(got.acquired()).isTrue();
        pro.add(got.permitId());
        for (String id : pro) assertThat(backend.release(six, id).toCompletableFuture().join()).isTrue();
    }

    /** One round trip per decision: one EVALSHA each, the script text sent to Redis at most once. */
    @Test
    void aRateDecisionIsOneEvalshaAndTheScriptIsNotResent() {
        RateRequest r = new RateRequest(key("one-trip"), 1000, Duration.ofMinutes(1), 1);
        consume(r);
        long evalsha = calls("evalsha");
        long eval = calls("eval");
        for (int i = 0; i < 20; i++) consume(r);
        // Other tests' engines may measure clock skew meanwhile (one EVALSHA a minute each).
        assertThat(calls("evalsha") - evalsha).isBetween(20L, 22L);
        assertThat(calls("eval") - eval).isZero();
    }

    private static long calls(String command) {
        Map<String, String> stats = redisson.getRedisNodes(org.redisson.api.redisnode.RedisNodes.SINGLE).getInstance()
                .info(org.redisson.api.redisnode.RedisNode.InfoSection.COMMANDSTATS);
        String v = stats.get("cmdstat_" + command);
        if (v == null) return 0;
        return Long.parseLong(v.replaceFirst("^calls=(\\d+),.*$", "$1"));
    }
}
