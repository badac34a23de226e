package io.sluice.topology;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.rule.Rule;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisCluster;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import io.sluice.testing.RedisYaml;
import io.sluice.testing.Resp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine on a real 3-master Redis Cluster, configured by Redisson's cluster YAML through
 * {@code sluice.redis.config}: exact limits under parallel load, keys spread over every master, and no
 * CROSSSLOT whatever the key content. Rules deny on backend failure, so a failing script would show as a
 * wrong count, and the engine's stats must show no failure at all.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class ClusterIT {
    private static final String PREFIX = "cl" + UUID.randomUUID().toString().substring(0, 8);
    private static Sluice sluice;
    private static RedisCluster cluster;

    @Parameter
    RedisVersion version;

    @BeforeParameterizedClassInvocation
    static void start(RedisVersion version) {
        cluster = RedisCluster.shared(version);
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.config", RedisYaml.file(cluster.yaml()));
        p.put("sluice.key-prefix", PREFIX);
        p.put("sluice.on-backend-failure", "deny");
        // Generous: decisions must succeed under parallel load on a loaded 2-core machine.
        p.put("sluice.backend-timeout", "5s");
        p.put("sluice.rules.burst.rate", "50/1h");
        p.put("sluice.rules.slots.rate", "1/1h");
        p.put("sluice.rules.inflight.concurrency", "5");
        p.put("sluice.rules.both.rate", "3/1h");
        p.put("sluice.rules.both.concurrency", "2");
        sluice = Sluice.fromProperties(p);
        Connected.await(sluice, "burst"); // a rule whose keys no test counts
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        if (sluice != null) sluice.close();
        sluice = null;
    }

    private static Rule rule(String name) {
        return sluice.rules().get(name).orElseThrow();
    }

    private static Admission admit(Rule rule, String key) {
        return sluice.admit(List.of(rule), r -> key).toCompletableFuture().join();
    }

    @Test
    void aRateHoldsExactlyUnderParallelLoad() throws Exception {
        Stats before = sluice.stats();
        String key = "burst-" + UUID.randomUUID();
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        inParallel(16, 400, i -> {
            if (admit(rule("burst"), key).allowed()) admitted.incrementAndGet();
            else rejected.incrementAndGet();
        });
        assertThat(admitted.get()).isEqualTo(50);
        assertThat(rejected.get()).isEqualTo(350);
        assertNoBackendFailureSince(before);
    }

    @Test
    void concurrencyHoldsExactlyUnderParallelLoadAndEveryPermitComesBack() throws Exception {
        Stats before = sluice.stats();
        Rule inflight = rule("inflight");
        String key = "inflight-" + UUID.randomUUID();

        // 40 parallel requests, none finishing before all are decided: exactly the limit gets in.
        List<Admission> held = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger rejected = new AtomicInteger();
        inParallel(8, 40, i -> {
            Admission a = admit(inflight, key);
            if (a.allowed()) held.add(a);
            else rejected.incrementAndGet();
        });
        assertThat(held).hasSize(5);
        assertThat(rejected.get()).isEqualTo(35);
        held.forEach(Admission::close);
        awaitAllFree(inflight, key);

        // Churn: 8 callers for 2 s each hold briefly; work in flight (inside the permits) never exceeds 5.
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        inParallel(8, 8, i -> {
            while (System.nanoTime() < end) {
                try (Admission a = admit(inflight, key)) {
                    if (!a.allowed()) continue;
                    peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    ran.incrementAndGet();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3)); // the work
                    inFlight.decrementAndGet();
                }
            }
        });
        System.out.println("cluster churn: " + ran.get() + " admitted, peak in flight " + peak.get());
        assertThat(peak.get()).isBetween(1, 5);
        awaitAllFree(inflight, key);
        assertNoBackendFailureSince(before);
    }

    @Test
    void thousandsOfKeysSpreadOverEveryMasterAndManySlots() throws Exception {
        Stats before = sluice.stats();
        int keys = 3000;
        String run = UUID.randomUUID().toString();
        AtomicInteger firstAdmitted = new AtomicInteger();
        AtomicInteger secondRejected = new AtomicInteger();
        inParallel(8, keys, i -> {
            String key = run + "-" + i;
            if (admit(rule("slots"), key).allowed()) firstAdmitted.incrementAndGet();
            if (!admit(rule("slots"), key).allowed()) secondRejected.incrementAndGet();
        });
        assertThat(firstAdmitted.get()).isEqualTo(keys);
        assertThat(secondRejected.get()).isEqualTo(keys);
        assertNoBackendFailureSince(before);

        Set<Long> slots = new HashSet<>();
        int total = 0;
        for (RedisProcess master : cluster.masters()) {
            List<String> limiters = RedisCluster.keys(master, PREFIX + ":slots:");
            System.out.println("cluster master " + master.port() + ": " + limiters.size() + " of " + keys + " limiters");
            // Evenly hashed over 3 masters: about 1000 each; far from 0 on any.
            assertThat(limiters.size()).as("limiters on master %d", master.port()).isGreaterThan(keys / 6);
            total += limiters.size();
            try (Resp resp = Resp.connect(master.port(), Duration.ofSeconds(10))) {
                for (String k : limiters) slots.add((Long) resp.call("CLUSTER", "KEYSLOT", k));
            }
        }
        assertThat(total).isEqualTo(keys);
        System.out.println("cluster: " + keys + " keys in " + slots.size() + " distinct slots");
        assertThat(slots.size()).isGreaterThan(keys / 2);
    }

    @Test
    void hostileKeysNeverCrossSlotsAndEachLimitersKeysShareOneSlot() {
        Stats before = sluice.stats();
        Rule both = rule("both");
        List<String> hostile = List.of("{", "}", "{}", "}{", "{a}b", "a{b}c", "{" + PREFIX + "}", "{{x}}", "x}:{y",
                "{both}:value", "\r\n", "\u0000", "ü€😀", "*", "?", "[a]", " ", "a".repeat(10_000),
                "redisson_sc:{x}", "{" + "b".repeat(500) + "}");
        for (String key : hostile) {
            Admission first = admit(both, key);
            Admission second = admit(both, key);
            // Rejected by the concurrency limit, it gives back the rate permit it took (a rejection takes nothing).
            Admission third = admit(both, key);
            String shown = key.length() > 20 ? key.substring(0, 20) + "..." : key;
            assertThat(first.allowed()).as("first for %s", shown).isTrue();
            assertThat(second.allowed()).as("second for %s", shown).isTrue();
            assertThat(third.rejection().map(Decision::kind)).as("third for %s", shown).contains(Decision.Kind.CONCURRENCY);
            first.close();
            second.close();
            awaitAllFree(both, key);
            Admission fourth = admit(both, key);
            Admission fifth = admit(both, key);
            assertThat(fourth.allowed()).as("fourth for %s", shown).isTrue();
            assertThat(fifth.rejection().map(Decision::kind)).as("fifth for %s", shown).contains(Decision.Kind.RATE);
            fourth.close();
            awaitAllFree(both, key);
        }
        assertNoBackendFailureSince(before);

        // Every key Sluice wrote is its own name or Redisson's {name}:suffix, never user content, and all the
        // keys of one limiter hash to the slot of its name (else its script would have failed with CROSSSLOT).
        Pattern ours = Pattern.compile("(\\{)?" + PREFIX + ":both:(sliding-log:1h|concurrency):[A-Za-z0-9_-]{22}(}:(value|permits|timeout|released))?");
        Map<String, Long> slotOfName = new HashMap<>();
        Map<String, Set<Long>> slotsOfLimiter = new HashMap<>();
        for (RedisProcess master : cluster.masters()) {
            List<String> all = new ArrayList<>(RedisCluster.keys(master, PREFIX + ":both:"));
            all.addAll(RedisCluster.keys(master, "{" + PREFIX + ":both:"));
            try (Resp resp = Resp.connect(master.port(), Duration.ofSeconds(10))) {
                for (String k : all) {
                    assertThat(k).matches(ours);
                    String name = k.startsWith("{") ? k.substring(1, k.indexOf('}')) : k;
                    long slot = (Long) resp.call("CLUSTER", "KEYSLOT", k);
                    slotOfName.computeIfAbsent(name, n -> (Long) resp.call("CLUSTER", "KEYSLOT", n));
                    slotsOfLimiter.computeIfAbsent(name, n -> new HashSet<>()).add(slot);
                }
            }
        }
        // One rate limiter and one semaphore per hostile key.
        assertThat(slotsOfLimiter).hasSize(2 * hostile.size());
        slotsOfLimiter.forEach((name, slots) -> assertThat(slots).as(name).containsExactly(slotOfName.get(name)));
    }

    private static void awaitAllFree(Rule rule, String key) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(sluice.availablePermits(rule, key).toCompletableFuture().join()).isEqualTo(rule.concurrency()));
    }

    private static void assertNoBackendFailureSince(Stats before) {
        Stats now = sluice.stats();
        assertThat(now.failedOpen() - before.failedOpen()).as("fail-open decisions").isZero();
        assertThat(now.failedClosed() - before.failedClosed()).as("fail-closed decisions").isZero();
    }

    interface Task {
        void run(int i) throws Exception;
    }

    /** Runs {@code count} tasks on {@code threads} threads, all released at once; rethrows the first failure. */
    static void inParallel(int threads, int count, Task task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int n = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    task.run(n);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) f.get(120, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }
}
