package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Plans and {@code wait} on one concurrency rule, through the engine on a real Redis (issue 21): one counter per key,
 * a limit per plan. A waiter is judged by its own plan's limit, not by a free count another plan's limit left, and it
 * is woken as soon as a permit it may take is freed, whatever the limit of the request that freed it.
 *
 * <p>Before the fix (Redisson's waiting acquire, one free count for every plan, a release writing it under the rule's
 * own limit): with {@code concurrency=4} and {@code free}'s 1, two free waiters were admitted while the first free
 * request still ran (3 {@code free} in flight); with {@code concurrency=1} and {@code pro}'s 6, a pro waiter was
 * admitted only when its own 3 s wait ran out, not when a pro permit came back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlansWithWaitTest {
    /** Far below the 3 s wait, far above a wake-up on a loaded machine: a waiter admitted later was not woken. */
    private static final Duration WAKE_UP_BOUND = Duration.ofMillis(1_500);
    private static final Duration WAIT = Duration.ofSeconds(3);
    private RedisProcess redis;
    private final List<Sluice> engines = new ArrayList<>();

    @BeforeAll
    void start() {
        redis = RedisProcess.start(RedisVersion.REDIS_7);
    }

    @AfterAll
    void stop() {
        engines.forEach(Sluice::close);
        redis.close();
    }

    private Sluice engine(String prefix, String... props) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.address", redis.address());
        p.put("sluice.key-prefix", prefix);
        p.put("sluice.backend-timeout", "5s"); // a loaded 2-core machine: what is measured is the wake-up
        p.put("sluice.rules.c.key", "header:X-User");
        p.put("sluice.rules.c.plan", "header:X-Plan");
        p.put("sluice.rules.c.wait", WAIT.toSeconds() + "s");
        p.put("sluice.rules.c.lease", "1h");
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        Sluice s = Sluice.fromProperties(p);
        engines.add(s);
        Connected.await(s);
        return s;
    }

    /** Requests in flight per plan ({@code -} for none) and the most seen at once. */
    private static final class InFlight {
        final Map<String, AtomicInteger> now = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> peak = new ConcurrentHashMap<>();

        void entered(String plan) {
            int n = now.computeIfAbsent(plan, p -> new AtomicInteger()).incrementAndGet();
            peak.computeIfAbsent(plan, p -> new AtomicInteger()).accumulateAndGet(n, Math::max);
        }

        /** Counted out before the release is sent: the next request can only be admitted after it. */
        void end(String plan, Admission a) {
            now.get(plan).decrementAndGet();
            a.close();
        }

        int peak(String plan) {
            return peak.getOrDefault(plan, new AtomicInteger()).get();
        }
    }

    private static CompletableFuture<Admission> admit(Sluice s, String user, String plan, InFlight inFlight) {
        Rule rule = s.rules().get("c").orElseThrow();
        KeySource keys = KeySource.fixed(user);
        if (plan != null) keys = keys.withPlan(plan);
        return s.admit(List.of(rule), keys).toCompletableFuture().thenApply(a -> {
            if (a.allowed()) inFlight.entered(String.valueOf(plan));
            return a;
        });
    }

    /**
     * {@code concurrency=4}, {@code free} 1: one free request and two without a plan held, three free waiters. The two
     * without a plan end: no free waiter may start while the first free request runs. Then each free request that ends
     * lets exactly the next free waiter in, within the wake-up bound of its release.
     */
    @Test
    void aWaiterIsJudgedByItsOwnPlansLimit() throws Exception {
        String prefix = "pw-" + UUID.randomUUID().toString().substring(0, 8);
        Sluice s = engine(prefix, "sluice.rules.c.concurrency", "4", "sluice.rules.c.plans.free.concurrency", "1");
        String user = "u-" + UUID.randomUUID();
        InFlight inFlight = new InFlight();
        Admission free = admit(s, user, "free", inFlight).join();
        Admission none1 = admit(s, user, null, inFlight).join();
        Admission none2 = admit(s, user, null, inFlight).join();
        assertThat(List.of(free.allowed(), none1.allowed(), none2.allowed())).containsOnly(true);

        List<CompletableFuture<Admission>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) waiters.add(admit(s, user, "free", inFlight));
        awaitWaiting(prefix);
        inFlight.end("null", none1);
        inFlight.end("null", none2);
        // Two permits are free under the rule's 4, none under free's 1: every free waiter keeps waiting.
        try {
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                    .until(() -> waiters.stream().noneMatch(CompletableFuture::isDone));
        } catch (ConditionTimeoutException admitted) {
            assertThat(inFlight.peak("free")).as("free requests in flight at once, while the first still runs").isEqualTo(1);
            throw admitted;
        }

        Admission ending = free;
        List<Long> latencies = new ArrayList<>();
        for (int admitted = 0; admitted < 3; admitted++) {
            long released = System.nanoTime();
            inFlight.end("free", ending);
            ending = nextAdmitted(waiters);
            long latency = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
            assertThat(ending.allowed()).as("free waiter %d", admitted + 1).isTrue();
            assertThat(Duration.ofMillis(latency)).as("release to admission of free waiter %d", admitted + 1).isLessThan(WAKE_UP_BOUND);
            latencies.add(latency);
        }
        System.out.println("plans and wait: free waiters admitted " + latencies + " ms after the release before them");
        inFlight.end("free", ending);
        assertThat(inFlight.peak("free")).as("free requests in flight at once").isEqualTo(1);
        assertThat(inFlight.peak("null")).isEqualTo(2);
    }

    /**
     * {@code concurrency=1}, {@code pro} 6: six pro requests held, a seventh waits; one ends: the waiter is admitted
     * within the wake-up bound of that release (before the fix: when its own 3 s wait ran out), and never a seventh
     * pro request in flight.
     */
    @Test
    void aWaiterIsWokenByAReleaseUnderAnotherLimit() {
        String prefix = "pw-" + UUID.randomUUID().toString().substring(0, 8);
        Sluice s = engine(prefix, "sluice.rules.c.concurrency", "1", "sluice.rules.c.plans.pro.concurrency", "6");
        String user = "u-" + UUID.randomUUID();
        InFlight inFlight = new InFlight();
        List<Admission> held = new ArrayList<>();
        for (int i = 0; i < 6; i++) held.add(admit(s, user, "pro", inFlight).join());
        assertThat(held).allMatch(Admission::allowed);
        CompletableFuture<Admission> waiter = admit(s, user, "pro", inFlight);
        awaitWaiting(prefix);
        assertThat(waiter).as("waiting while 6 pro permits are held").isNotDone();

        long released = System.nanoTime();
        inFlight.end("pro", held.remove(0));
        Admission admitted = waiter.orTimeout(15, TimeUnit.SECONDS).join();
        long latency = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        assertThat(admitted.allowed()).isTrue();
        assertThat(Duration.ofMillis(latency)).as("release to admission of the pro waiter").isLessThan(WAKE_UP_BOUND);
        System.out.println("plans and wait: the pro waiter admitted " + latency + " ms after the release");
        assertThat(inFlight.peak("pro")).as("pro requests in flight at once").isEqualTo(6);
        held.add(admitted);
        held.forEach(a -> inFlight.end("pro", a));
    }

    /** The one of {@code waiters} admitted next (removed from the list); the others still wait. */
    private static Admission nextAdmitted(List<CompletableFuture<Admission>> waiters) throws Exception {
        CompletableFuture.anyOf(waiters.toArray(CompletableFuture[]::new)).get(15, TimeUnit.SECONDS);
        CompletableFuture<Admission> done = waiters.stream().filter(CompletableFuture::isDone).findFirst().orElseThrow();
        waiters.remove(done);
        return done.join();
    }

    /** Until Redis shows a waiter subscribed to the key's wake-up channel (Sluice's own, or Redisson's before it). */
    private void awaitWaiting(String prefix) {
        await("a subscribed waiter").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(5)).until(() -> {
            List<?> channels = (List<?>) redis.command("PUBSUB", "CHANNELS", "*" + prefix + "*");
            return !channels.isEmpty();
        });
    }
}
