package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import io.sluice.testing.PermitHolder;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An app server holding every permit of a concurrency rule (C = 3, lease 1 s) in a child JVM: while it lives, its
 * requests keep their permits for three times the lease and more (renewal) and no other server gets one; killed
 * with {@code destroyForcibly} (SIGKILL), its permits come back within the lease plus a second, and the peak in
 * flight never exceeds C.
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisVersion.class)
class NodeCrashIT {
    @Parameter
    RedisVersion version;

    private static final int C = 3;
    private static final Duration LEASE = Duration.ofSeconds(1);

    @Test
    void aKilledServersPermitsComeBackWithinTheLeaseAndALiveServerKeepsItsOwn() throws Exception {
        try (RedisProcess redis = version.start();
             Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", redis.address(),
                     "sluice.backend-timeout", "1s",
                     "sluice.rules.slots.key", "global",
                     "sluice.rules.slots.concurrency", Integer.toString(C),
                     "sluice.rules.slots.lease", "1s"))) {
            Rule rule = sluice.rules().get("slots").orElseThrow();
            Process child = holder(redis.address());
            Contenders contenders = null;
            try {
                awaitLine(child, "HOLDING " + C);
                long heldAt = System.nanoTime();
                contenders = new Contenders(sluice, rule, 4);
                Thread.sleep(LEASE.toMillis() * 7 / 2); // the child's requests last 3.5 leases (and count)
                long heldMillis = (System.nanoTime() - heldAt) / 1_000_000;
                assertThat(contenders.admitted.get()).as("admitted while the other server held every permit").isZero();
                assertThat(contenders.rejected.get()).isPositive();
                assertThat(sluice.availablePermits(rule, "*").toCompletableFuture().join()).isZero();

                child.destroyForcibly();
                assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
                long killedAt = System.nanoTime();
                Contenders c = contenders;
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> c.firstAdmittedAt.get() != 0);
                long backMillis = (c.firstAdmittedAt.get() - killedAt) / 1_000_000;
                // All C come back, and no more than C are ever in flight.
                await().atMost(Duration.ofSeconds(10)).until(() -> c.peak.get() == C);
                long admittedAfter = c.admitted.get();
                await().atMost(Duration.ofSeconds(10)).until(() -> c.admitted.get() > admittedAfter + 50);
                contenders.close();
                System.out.println("node crash: the child held " + C + " permits for " + heldMillis + " ms (lease "
                        + LEASE.toMillis() + " ms) with none lost; after SIGKILL the first came back in " + backMillis
                        + " ms; peak in flight " + c.peak.get() + " of " + C + " over " + c.admitted.get() + " admitted");
                assertThat(backMillis).as("ms until the killed server's permits returned").isLessThanOrEqualTo(LEASE.toMillis() + 1_000);
                assertThat(c.peak.get()).isEqualTo(C);
                assertThat(c.errors.get()).isZero();
                await().atMost(Duration.ofSeconds(10)).until(() -> sluice.availablePermits(rule, "*").toCompletableFuture().join() == C);
            } finally {
                if (contenders != null) contenders.close();
                child.destroyForcibly();
                child.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** The child JVM: this test's own classpath, {@link PermitHolder} as main. */
    private static Process holder(String address) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-Xmx128m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), PermitHolder.class.getName(),
                address, Integer.toString(C), "1s", Integer.toString(C));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Waits for the child to print {@code expected}; everything it prints is echoed, and drained afterwards. */
    private static void awaitLine(Process child, String expected) throws Exception {
        CompletableFuture<Void> seen = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    System.out.println("[child] " + line);
                    if (line.equals(expected)) seen.complete(null);
                }
            } catch (Exception ignored) {
                // the child was killed
            }
            seen.completeExceptionally(new IllegalStateException("child exited before printing " + expected));
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
        seen.get(60, TimeUnit.SECONDS);
    }

    /** Threads asking for a permit in a loop; an admitted one holds it 20 ms. Counts admissions and the peak in flight. */
    private static final class Contenders implements AutoCloseable {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong firstAdmittedAt = new AtomicLong();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;

        Contenders(Sluice sluice, Rule rule, int count) {
            for (int i = 0; i < count; i++) {
                Thread t = new Thread(() -> {
                    while (running) {
                        try {
                            Admission a = sluice.admit(List.of(rule), KeySource.fixed("*")).toCompletableFuture().get(5, TimeUnit.SECONDS);
                            Decision d = a.decisions().get(0);
                            if (d.outcome() != Decision.Outcome.DECIDED) {
                                errors.incrementAndGet();
                            } else if (a.allowed()) {
                                firstAdmittedAt.compareAndSet(0, System.nanoTime());
                                admitted.incrementAndGet();
                                int now = inFlight.incrementAndGet();
                                peak.accumulateAndGet(now, Math::max);
                                Thread.sleep(20);
                                inFlight.decrementAndGet();
                            } else {
                                rejected.incrementAndGet();
                                Thread.sleep(5);
                            }
                            a.close();
                        } catch (InterruptedException e) {
                            return;
                        } catch (Exception e) {
                            errors.incrementAndGet();
                        }
                    }
                }, "contender-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }

        @Override
        public void close() {
            running = false;
            try {
                for (Thread t : threads) t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
