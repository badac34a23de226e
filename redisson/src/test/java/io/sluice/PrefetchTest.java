package io.sluice;

import io.sluice.engine.EngineProbe;
import io.sluice.engine.Engine;
import io.sluice.memory.InMemoryBackend;
import io.sluice.redisson.RedissonBackend;
import io.sluice.rule.Rule;
import io.sluice.spi.Announcing;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.ForwardingBackend;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RScoredSortedSet;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.ScoredEntry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule's {@code prefetch} on a real Redis: one server admits exactly its limit with a round trip per prefetch
 * instead of per request; permits come back when the hold ends or the server closes; several servers together never
 * admit more than the limit and, once they have closed, have lost none of it; a log counts prefetched permits from
 * the hold's end.
 */
@Timeout(120)
class PrefetchTest {
    @RegisterExtension
    static final TestRedissonClient redis = new TestRedissonClient();
    private final MutableClock clock = MutableClock.startingNow();
    private final String prefix = "prefetch-" + System.nanoTime();

    /** A server on the shared Redis with its own backend (counted) and the test's clock and ticker. */
    private Server server(String algorithm, String rate, String... more) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", prefix);
        p.put("sluice.backend-timeout", "5s");
        p.put("sluice.rules.r.rate", rate);
        p.put("sluice.rules.r.algorithm", algorithm);
        for (int i = 0; i < more.length; i += 2) p.put(more[i], more[i + 1]);
        Counted backend = new Counted(new RedissonBackend(redis.client(), false, clock, Duration.ofSeconds(5)));
        Sluice sluice = Sluice.builder().properties(p).backend(backend).clock(clock).ticker(clock).build();
        return new Server(sluice, backend);
    }

    private record Server(Sluice sluice, Counted backend) implements AutoCloseable {
        Decision admit(String key) {
            Rule rule = sluice.rules().get("r").orElseThrow();
            return sluice.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().join().decisions().get(0);
        }

        /** Admits, then waits for a refill it started, so that a test of one thread sees one order of events. */
        Decision admitSettled(String key) {
            Decision d = admit(key);
            EngineProbe.settled(sluice.engine(), sluice.rules().get("r").orElseThrow(), key).join();
            return d;
        }

        Engine engine() {
            return sluice.engine();
        }

        @Override
        public void close() {
            sluice.close();
        }
    }

    /**
     * 1 000 a day, 49 prefetched: the first request waits for its own decision and the first 49; from then on each
     * stock is refilled in the background when a quarter of it is left: 20 refills bring the rest of the 1 000, a
     * 21st finds nothing, and once the stock is spent one request's own call finds nothing either and teaches the
     * shield, which answers the other 99. So 23 calls, 2 of them waited for. Remaining counts down by one per
     * request, as without prefetch. (A day, so that a token bucket on Redis time refills nothing while the test runs.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void oneServerAdmitsExactlyItsLimitWithARoundTripPerPrefetch(String algorithm) {
        try (Server s = server(algorithm, "1000/1d", "sluice.rules.r.prefetch", "49")) {
            int admitted = 0;
            for (int i = 0; i < 1100; i++) {
                Decision d = s.admitSettled("alice");
                if (d.allowed()) {
                    admitted++;
                    assertThat(d.remaining()).as("request %d", i).isEqualTo(1000 - admitted);
                } else {
                    assertThat(d.remaining()).isZero();
                    assertThat(d.retryAfter()).isPositive();
                }
                assertThat(d.outcome()).isEqualTo(Decision.Outcome.DECIDED);
            }
            assertThat(admitted).isEqualTo(1000);
            assertThat(s.backend().decisions.get()).as("backend calls").isEqualTo(23);
            assertThat(s.backend().prefetches.get()).as("requests waiting for their own call").isEqualTo(2);
        }
    }

    /**
     * The unused rest of a prefetch goes back when the hold (here the default, 1 s) ends: another server, which
     * does not prefetch, then finds all of it free again; and a log holds exactly one entry per permit in use.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void unusedPermitsGoBackWhenTheHoldEnds(String algorithm) {
        try (Server a = server(algorithm, "1000/1d", "sluice.rules.r.prefetch", "100");
             Server b = server(algorithm, "1000/1d")) {
            assertThat(a.admit("bob").remaining()).isEqualTo(999);
            assertThat(a.admit("bob").remaining()).as("from the stock").isEqualTo(998);
            assertThat(b.admit("bob").remaining()).as("the other server sees what the first holds as taken").isEqualTo(898);
            assertThat(EngineProbe.held(a.engine())).isEqualTo(99);
            if (algorithm.equals("sliding-log")) assertThat(logSize()).as("two requests, a prefetch of 100 in one entry, one request").isEqualTo(3);

            clock.advance(Duration.ofMillis(999));
            EngineProbe.sweep(a.engine()).join();
            assertThat(EngineProbe.held(a.engine())).as("the hold has not ended").isEqualTo(99);
            clock.advance(Duration.ofMillis(1));
            EngineProbe.sweep(a.engine()).join();
            assertThat(EngineProbe.held(a.engine())).isZero();
            assertThat(b.admit("bob").remaining()).as("all 99 back: 4 used").isEqualTo(996);
            if (algorithm.equals("sliding-log")) assertThat(logSize()).as("the prefetch's entry kept for its one permit used").isEqualTo(4);
        }
    }

    /** A server that closes hands back what it holds. */
    @Test
    void aClosingServerHandsItsStockBack() {
        Server a = server("sliding-log", "500/1d", "sluice.rules.r.prefetch", "200");
        assertThat(a.admit("carol").remaining()).isEqualTo(499);
        a.close();
        try (Server b = server("sliding-log", "500/1d")) {
            assertThat(b.admit("carol").remaining()).isEqualTo(498);
        }
    }

    /**
     * A sliding log counts a prefetched permit from the end of its hold: its entry is scored at now + hold, so the
     * log keeps it in the window for as long as a use of it could need (a permit used at the end of the hold leaves
     * the window a period after that use, not earlier).
     */
    @Test
    void aLogCountsPrefetchedPermitsFromTheHoldsEnd() {
        try (Server a = server("sliding-log", "1000/1h", "sluice.rules.r.prefetch", "10", "sluice.rules.r.prefetch-hold", "250ms")) {
            long now = clock.millis();
            a.admit("dave");
            Map<Double, Integer> scores = new HashMap<>();
            for (ScoredEntry<byte[]> e : log().entryRange(0, -1)) scores.merge(e.getScore(), 1, Integer::sum);
            assertThat(scores).as("the request's entry, and the prefetch's of 10 permits")
                    .containsExactlyInAnyOrderEntriesOf(Map.of((double) now, 1, (double) now + 250, 1));
        }
    }

    /**
     * Once its stock is back, a log counts each prefetched permit from its use, as without prefetch (seed 19 of the
     * engine model): 3 an hour, a prefetch of 2, all three permits used at one instant. Handed back at the hold's end,
     * the stock's entry moves to that instant; an hour after it all three have left the window (the stock's two
     * stayed a hold longer before), and the next three are admitted counting down 2, 1, 0, as without prefetch.
     */
    @Test
    void aStockBackCountsItsPermitsFromTheirUse() {
        try (Server a = server("sliding-log", "3/1h", "sluice.rules.r.prefetch", "2", "sluice.rules.r.prefetch-hold", "250ms")) {
            long now = clock.millis();
            for (int left = 2; left >= 0; left--) assertThat(a.admitSettled("erin").remaining()).isEqualTo(left);
            clock.advance(Duration.ofMillis(250));
            EngineProbe.sweep(a.engine()).join();
            Map<Double, Integer> scores = new HashMap<>();
            for (ScoredEntry<byte[]> e : log().entryRange(0, -1)) scores.merge(e.getScore(), 1, Integer::sum);
            assertThat(scores).as("the request's entry, and the stock's two permits at their use")
                    .containsExactlyInAnyOrderEntriesOf(Map.of((double) now, 2));

            clock.advance(Duration.ofHours(1).minusMillis(250));
            for (int left = 2; left >= 0; left--) {
                Decision d = a.admitSettled("erin");
                assertThat(d.allowed()).as("an hour after the three").isTrue();
                assertThat(d.remaining()).isEqualTo(left);
            }
            assertThat(a.admitSettled("erin").allowed()).isFalse();
        }
    }

    /**
     * Three servers, 8 threads each, hammer one key of {@code 500/1d} with 40 prefetched at a time: together they
     * never admit more than 500; once they have closed (handing back what they held), a fourth server finds exactly
     * what they left, so every permit was either used or handed back.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void serversTogetherNeverAdmitMoreThanTheLimitAndLoseNone(String algorithm) throws Exception {
        List<Server> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) servers.add(server(algorithm, "500/1d", "sluice.rules.r.prefetch", "40"));
        int admitted;
        try {
            admitted = hammer(servers, "eve", 15);
        } finally {
            for (Server s : servers) s.close();
        }
        assertThat(admitted).as("3 x 8 x 15 = 360 asked of 500").isEqualTo(360);
        try (Server last = server(algorithm, "500/1d")) {
            int more = 0;
            while (last.admit("eve").allowed()) more++;
            assertThat(admitted + more).isEqualTo(500);
        }
    }

    /** Asked for more than the limit, three prefetching servers admit exactly the limit together. */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void serversUnderOverloadAdmitExactlyTheLimit(String algorithm) throws Exception {
        List<Server> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) servers.add(server(algorithm, "300/1d", "sluice.rules.r.prefetch", "25"));
        try {
            int admitted = hammer(servers, "frank", 25);
            assertThat(admitted).as("at most the limit while the servers hold stock").isLessThanOrEqualTo(300);
            // The rest of the servers' stocks, handed back at the hold's end, is admitted then: exactly the limit.
            // (Once every refill the hammer started has landed: one that lands later is handed back later.)
            for (Server s : servers) EngineProbe.settled(s.engine(), s.sluice().rules().get("r").orElseThrow(), "frank").join();
            clock.advance(Duration.ofSeconds(1));
            for (Server s : servers) EngineProbe.sweep(s.engine()).join();
            for (Server s : servers) assertThat(EngineProbe.held(s.engine())).isZero();
            int more = 0;
            while (servers.get(0).admit("frank").allowed()) more++;
            assertThat(admitted + more).isEqualTo(300);
        } finally {
            for (Server s : servers) s.close();
        }
    }

    /**
     * A Redis that never answers a prefetch: the request that sent it and one that waits for its stock are both
     * decided by {@code on-backend-failure} when the deadline passes, not later (the waiter's wait is bounded like
     * a call of its own). Time is the test's: nothing is decided at 199 ms, both are at 200.
     */
    @Test
    void waitingForAStockThatNeverComesCostsTheDeadline() throws Exception {
        ForwardingBackend silent = new ForwardingBackend(new InMemoryBackend(clock)) {
            @Override
            public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold,
                                                                   List<Prefetch.Receipt> usedUp) {
                return new CompletableFuture<>();
            }
        };
        Map<String, String> p = Map.of("sluice.rules.r.rate", "1000/1m", "sluice.rules.r.key", "global",
                "sluice.rules.r.prefetch", "10", "sluice.backend-timeout", "200ms", "sluice.on-backend-failure", "deny");
        try (Sluice sluice = Sluice.builder().properties(p).backend(silent).clock(clock).ticker(clock).build()) {
            Rule rule = sluice.rules().get("r").orElseThrow();
            CompletableFuture<Admission> sender = sluice.admit(List.of(rule), KeySource.fixed("x")).toCompletableFuture();
            CompletableFuture<Admission> waiter = sluice.admit(List.of(rule), KeySource.fixed("x")).toCompletableFuture();
            clock.advance(Duration.ofMillis(199));
            // The deadlines are swept every few milliseconds of real time: give the sweep a chance to be wrong.
            Thread.sleep(100);
            assertThat(sender).isNotDone();
            assertThat(waiter).as("waits for the stock in flight").isNotDone();
            clock.advance(Duration.ofMillis(1));
            for (Admission a : List.of(sender.get(5, TimeUnit.SECONDS), waiter.get(5, TimeUnit.SECONDS))) {
                assertThat(a.allowed()).isFalse();
                assertThat(a.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            }
        }
    }

    /** 8 threads a server, all starting at once, each asking {@code perThread} times for {@code key}: how many were admitted. */
    /**
     * {@code prefetch=auto}, a rule's default: a key seen once a hold (100 ms) and a limit whose hundredth is less than
     * the smallest stock (4 permits) never prefetch; every request is one call, as without prefetch.
     */
    @Test
    void autoTakesNothingAheadForAQuietKeyOrASmallLimit() {
        try (Server s = server("sliding-log", "100000/1h")) {
            assertThat(s.sluice.rules().get("r").orElseThrow().ratePolicy().prefetch().auto()).isTrue();
            for (int i = 0; i < 20; i++) {
                assertThat(s.admitSettled("quiet").remaining()).isEqualTo(99_999 - i);
                clock.advance(Duration.ofMillis(150));
            }
            assertThat(s.backend().decisions.get()).isEqualTo(20);
            assertThat(s.backend().prefetches.get() + s.backend().refills.get()).isZero();
        }
        try (Server s = server("sliding-log", "399/1h")) {
            for (int i = 0; i < 50; i++) assertThat(s.admitSettled("small").remaining()).isEqualTo(398 - i);
            assertThat(s.backend().decisions.get()).as("a call each").isEqualTo(50);
            assertThat(s.backend().prefetches.get() + s.backend().refills.get()).isZero();
        }
    }

    /**
     * A busy key under {@code auto}: 2 100 requests at one instant on {@code 2000/1d} (a share of 20). The first three
     * are decided alone (fewer than 4 requests in the hold), the fourth takes 8 ahead (twice a demand of 4), and from
     * then on a refill asked when a quarter of the stock is left takes what the share of 20 leaves beside it (15): 131
     * calls in all, one per 16 requests. Exactly the limit is admitted, with {@code Remaining} counting down by one
     * per request, as without prefetch.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void autoStocksABusyKeyAndAdmitsExactlyAsWithout(String algorithm) {
        try (Server s = server(algorithm, "2000/1d")) {
            int admitted = 0;
            for (int i = 0; i < 2100; i++) {
                Decision d = s.admitSettled("busy");
                if (d.allowed()) {
                    admitted++;
                    assertThat(d.remaining()).as("request %d", i).isEqualTo(2000 - admitted);
                } else {
                    assertThat(d.remaining()).isZero();
                }
            }
            assertThat(admitted).isEqualTo(2000);
            assertThat(s.backend().decisions.get()).as("calls for 2 100 requests").isEqualTo(131);
            assertThat(EngineProbe.held(s.engine())).isZero();
        }
    }

    /**
     * A key used up under {@code auto} stays shielded until its reset, as without prefetch: the hundredth of the limit
     * another server could hand back early does not make every server ask Redis each hold.
     */
    @Test
    void autoKeepsAUsedUpKeyShieldedPastTheHold() {
        try (Server s = server("sliding-log", "1000/1h")) {
            int admitted = 0;
            for (int i = 0; i < 1050; i++) if (s.admitSettled("attacker").allowed()) admitted++;
            assertThat(admitted).isEqualTo(1000);
            int calls = s.backend().decisions.get();
            clock.advance(Duration.ofSeconds(5));
            for (int i = 0; i < 50; i++) assertThat(s.admitSettled("attacker").allowed()).isFalse();
            assertThat(s.backend().decisions.get()).as("no call 50 holds later").isEqualTo(calls);
        }
    }

    /**
     * Three servers that have counted each other share a {@code 3000/1d} limit's hundredth: each holds at most 10 of
     * a key; hammered together they admit exactly the limit, but for what a server still holds once its own requests
     * are all done (a server whose threads ran ahead may end holding a refill that no request of its own used: its
     * permits go back when its hold ends, which the test's clock never reaches; 2 990 admitted once, 10 held).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket"})
    void autoStocksAreAHundredthOfTheLimitAmongTheServers(String algorithm) throws Exception {
        List<Server> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) servers.add(server(algorithm, "3000/1d"));
        int admitted;
        long held = 0;
        try {
            for (Server s : servers) EngineProbe.announce(s.engine()).join();
            for (Server s : servers) {
                assertThat(EngineProbe.announce(s.engine()).join()).as("servers counted").isEqualTo(3);
                for (int i = 0; i < 50; i++) s.admitSettled("shared");
                assertThat(EngineProbe.held(s.engine())).as("a third of 30").isBetween(1L, 10L);
            }
            admitted = 150 + hammer(servers, "shared", 150);
            for (Server s : servers) {
                EngineProbe.settled(s.engine(), s.sluice.rules().get("r").orElseThrow(), "shared").join();
                long mine = EngineProbe.held(s.engine());
                assertThat(mine).as("a third of 30 at most").isBetween(0L, 10L);
                held += mine;
            }
        } finally {
            for (Server s : servers) s.close();
        }
        assertThat(admitted + held).as("150 + 3 x 8 x 150 asked of 3 000: admitted, or still held").isEqualTo(3000);
    }

    private static int hammer(List<Server> servers, String key, int perThread) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8 * servers.size());
        AtomicInteger admitted = new AtomicInteger();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> all = new ArrayList<>();
            for (Server s : servers) {
                for (int t = 0; t < 8; t++) {
                    all.add(threads.submit(() -> {
                        start.await();
                        for (int i = 0; i < perThread; i++) if (s.admit(key).allowed()) admitted.incrementAndGet();
                        return null;
                    }));
                }
            }
            start.countDown();
            for (Future<?> f : all) f.get();
        } finally {
            threads.shutdownNow();
        }
        return admitted.get();
    }

    private RScoredSortedSet<byte[]> log() {
        Collection<String> keys = new ArrayList<>();
        redis.client().getKeys().getKeysByPattern("*" + prefix + "*").forEach(keys::add);
        String permits = keys.stream().filter(k -> k.endsWith(":permits")).findFirst().orElseThrow();
        return redis.client().getScoredSortedSet(permits, ByteArrayCodec.INSTANCE);
    }

    private int logSize() {
        return log().size();
    }

    /** The backend's calls counted; it announces servers as Redis does, so that {@code auto} divides among them. */
    private static final class Counted extends ForwardingBackend implements Announcing {
        private final RedissonBackend redis;
        final AtomicInteger decisions = new AtomicInteger();
        final AtomicInteger prefetches = new AtomicInteger();
        final AtomicInteger refills = new AtomicInteger();

        Counted(RedissonBackend redis) {
            super(redis);
            this.redis = redis;
        }

        @Override
        public CompletionStage<Integer> announce(String key, String serverId, Duration goneAfter) {
            return redis.announce(key, serverId, goneAfter);
        }

        @Override
        public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
            decisions.incrementAndGet();
            return super.tryConsume(request);
        }

        @Override
        public CompletionStage<List<RateOutcome>> tryConsumeAll(List<RateRequest> requests) {
            decisions.incrementAndGet();
            return super.tryConsumeAll(requests);
        }

        @Override
        public CompletionStage<Prefetch> tryConsumeAndPrefetch(RateRequest request, long ahead, Duration hold,
                                                               List<Prefetch.Receipt> usedUp) {
            decisions.incrementAndGet();
            prefetches.incrementAndGet();
            return super.tryConsumeAndPrefetch(request, ahead, hold, usedUp);
        }

        @Override
        public CompletionStage<Prefetch> prefetch(RateRequest permit, long ahead, Duration hold, List<Prefetch.Receipt> usedUp) {
            decisions.incrementAndGet();
            refills.incrementAndGet();
            return super.prefetch(permit, ahead, hold, usedUp);
        }
    }
}
