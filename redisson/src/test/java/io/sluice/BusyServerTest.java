package io.sluice;

import com.sun.management.OperatingSystemMXBean;
import io.sluice.engine.Deadlines;
import io.sluice.rule.Rule;
import io.sluice.rule.Settings;
import io.sluice.testing.Connected;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A busy server is not a failing Redis (issue 21): bursts of decisions on a healthy local Redis while more threads
 * than there are cores spin beside them (bounded in time), with the default 100 ms deadline and the client Sluice
 * builds from the rules. Every decision is Redis's, none the failure policy's, and every key gets exactly its
 * limit; on a machine so loaded that a round trip takes longer than the hard bound (1 s), the policy decides only
 * then. On the previous main, at a load average of 15 to 19 on 2 cores, 1 709 to 1 943 of 2 064 decisions went to
 * the policy: calls failed at the deadline while their answers were on the way, and the circuit opened.
 */
@Timeout(300)
class BusyServerTest {
    private static final int LIMIT = 7;
    /** How long the CPU is kept saturated at most, whatever happens. */
    private static final long BUSY_MILLIS_AT_MOST = 60_000;

    /** Spins {@code threads} threads until closed or until {@link #BUSY_MILLIS_AT_MOST} has passed. */
    private static final class Saturation implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Thread> threads = new ArrayList<>();
        final AtomicLong spins = new AtomicLong();

        Saturation(int count) {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BUSY_MILLIS_AT_MOST);
            for (int i = 0; i < count; i++) {
                Thread t = new Thread(() -> {
                    long n = 0;
                    while (!stop.get() && System.nanoTime() < until) {
                        for (int j = 0; j < 100_000; j++) n += j ^ (n >>> 3);
                    }
                    spins.addAndGet(n & 1);
                }, "busy-" + i);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) t.join(10_000);
        }
    }

    private static Sluice engine(String algorithm) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.address", TestRedis.address());
        p.put("sluice.key-prefix", "busy-" + System.nanoTime());
        p.put("sluice.rules.r.rate", LIMIT + "/1m");
        p.put("sluice.rules.r.algorithm", algorithm);
        return Sluice.fromProperties(p);
    }

    /** One round: {@code perKey} concurrent requests on each of {@code keys} fresh keys, released at once. */
    private static Map<String, Integer> round(Sluice sluice, ExecutorService pool, String name, int keys, int perKey,
                                              Map<Decision.Outcome, Integer> outcomes, List<Long> policyMillis)
            throws Exception {
        Rule rule = sluice.rules().get("r").orElseThrow();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Admission>> all = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            String key = name + "-key-" + k;
            for (int i = 0; i < perKey; i++) {
                all.add(pool.submit(() -> {
                    start.await();
                    long began = System.nanoTime();
                    Admission a = sluice.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().join();
                    if (a.decisions().get(0).outcome() != Decision.Outcome.DECIDED) {
                        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
                        policyMillis.add(millis);
                    }
                    return a;
                }));
            }
        }
        start.countDown();
        Map<String, Integer> admitted = new TreeMap<>();
        for (int j = 0; j < all.size(); j++) {
            try (Admission a = all.get(j).get(60, TimeUnit.SECONDS)) {
                outcomes.merge(a.decisions().get(0).outcome(), 1, Integer::sum);
                if (a.allowed()) admitted.merge(name + "-key-" + j / perKey, 1, Integer::sum);
            }
        }
        return admitted;
    }

    /**
     * Waits (at most 5 s) until the JVM reads this machine's CPUs as saturated, as the engine would: a CPU load is
     * measured since its last reading, JVM-wide, and the engine reads it only when a call is about to fail, so its
     * first reading after an idle spell averages that spell in (once, in a CI run at load 10, 10 decisions of the first
     * burst failed at the deadline). This test is about a machine known to be saturated, not about how soon one that
     * just became so is known; the engine's lag there is documented (docs/storage-and-failures.md).
     */
    private static void awaitSaturatedReading() throws InterruptedException {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os)) return;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        os.getCpuLoad();
        while (System.nanoTime() < until) {
            Thread.sleep(100);
            if (os.getCpuLoad() >= 0.9) return;
        }
    }

    @Test
    void burstsOnASaturatedMachineAreDecidedByRedisExactly() throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        ExecutorService pool = Executors.newFixedThreadPool(130);
        Map<Decision.Outcome, Integer> outcomes = new TreeMap<>();
        List<Long> policyMillis = new CopyOnWriteArrayList<>();
        int rounds = 0;
        int wrongKeys = 0;
        long admitted = 0;
        try (Sluice sluice = engine("sliding-log"); Sluice bucket = engine("token-bucket")) {
            Connected.await(sluice);
            Connected.await(bucket);
            try (Saturation busy = new Saturation(cores + 1)) {
                awaitSaturatedReading();
                for (int r = 0; r < 4; r++) {
                    for (Sluice s : List.of(sluice, bucket)) {
                        // 13 keys x 10 requests: as HealthyBurstTest, 7 admitted per key.
                        Map<String, Integer> burst = round(s, pool, "burst-" + r, 13, 10, outcomes, policyMillis);
                        for (int k = 0; k < 13; k++) {
                            if (burst.getOrDefault("burst-" + r + "-key-" + k, 0) != LIMIT) wrongKeys++;
                        }
                        admitted += burst.values().stream().mapToInt(Integer::intValue).sum();
                        // A flood of 128 decisions in flight over distinct keys: every one admitted.
                        Map<String, Integer> flood = round(s, pool, "flood-" + r, 128, 1, outcomes, policyMillis);
                        if (flood.size() != 128) wrongKeys += 128 - flood.size();
                        admitted += flood.values().stream().mapToInt(Integer::intValue).sum();
                        rounds++;
                    }
                }
            }
            System.out.printf("busy server: %d rounds of 130 + 128 decisions beside %d spinning threads on %d cores: %s;"
                    + " %d admitted (exactly %d due); %d keys not at their limit%n", rounds, cores + 1, cores, outcomes,
                    admitted, rounds * (13L * LIMIT + 128), wrongKeys);
            long hardBound = Deadlines.hardBound(Settings.DEFAULT_BACKEND_TIMEOUT).toMillis();
            if (policyMillis.isEmpty()) {
                assertThat(outcomes).as("every decision Redis's").containsOnlyKeys(Decision.Outcome.DECIDED);
                assertThat(wrongKeys).isZero();
                assertThat(admitted).isEqualTo(rounds * (13L * LIMIT + 128));
            } else {
                // A machine so short of CPU that a round trip took longer than the stated bound (seen at a load average
                // of 15 to 22 on 2 cores): the policy may decide then, and only then, never at the deadline.
                System.out.println("decided by the policy, ms: " + policyMillis);
                assertThat(policyMillis).as("by the policy only past the hard bound").allMatch(ms -> ms >= hardBound);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
