package io.sluice;

import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The public listener of decisions: what it hears, that it never hears a key's value, and that it never holds a request up. */
class DecisionListenerTest {
    private static final long WAIT_SECONDS = 30;
    private final MutableClock clock = new MutableClock(1_000_000);

    private Sluice sluice(DecisionListener listener) {
        return Sluice.builder().properties(Map.of("sluice.rules.login.rate", "2/1m", "sluice.rules.login.key", "ip"))
                .inMemory().clock(clock).ticker(clock).onDecision(listener).build();
    }

    private static Admission admit(Sluice s, String key) {
        Rule rule = s.rules().get("login").orElseThrow();
        return s.admit(List.of(rule), KeySource.fixed(key)).toCompletableFuture().join();
    }

    private static DecisionEvent next(BlockingQueue<DecisionEvent> heard) throws InterruptedException {
        DecisionEvent e = heard.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(e).as("an event within %d s", WAIT_SECONDS).isNotNull();
        return e;
    }

    @Test
    void hearsEachDecisionWithTheKeysHashNeverItsValue() throws Exception {
        BlockingQueue<DecisionEvent> heard = new LinkedBlockingQueue<>();
        try (Sluice s = sluice(heard::add)) {
            for (int i = 0; i < 3; i++) admit(s, "203.0.113.7");
            String hash = KeyResolver.hash("203.0.113.7");
            Instant now = Instant.ofEpochMilli(1_000_000);
            assertThat(next(heard)).isEqualTo(new DecisionEvent("login", Decision.Kind.RATE, DecisionEvent.Result.ALLOWED, false,
                    1, 2, 1, Duration.ZERO, now, hash));
            assertThat(next(heard)).isEqualTo(new DecisionEvent("login", Decision.Kind.RATE, DecisionEvent.Result.ALLOWED, false,
                    1, 2, 0, Duration.ZERO, now, hash));
            DecisionEvent rejected = next(heard);
            assertThat(rejected.result()).isEqualTo(DecisionEvent.Result.REJECTED);
            assertThat(rejected.rejected()).isTrue();
            assertThat(rejected.retryAfter()).isPositive();
            assertThat(rejected.toString()).doesNotContain("203.0.113.7");
            assertThat(heard.poll(100, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void aThrowingListenerGoesOnHearingAndOthersHearEverything() throws Exception {
        AtomicInteger thrown = new AtomicInteger();
        BlockingQueue<DecisionEvent> heard = new LinkedBlockingQueue<>();
        try (Sluice s = sluice(e -> {
            thrown.incrementAndGet();
            throw new IllegalStateException("listener bug");
        })) {
            s.listen(heard::add);
            for (int i = 0; i < 5; i++) assertThat(admit(s, "k" + i).allowed()).isTrue();
            for (int i = 0; i < 5; i++) assertThat(next(heard).keyHash()).isEqualTo(KeyResolver.hash("k" + i));
            assertThat(thrown.get()).isEqualTo(5);
        }
    }

    @Test
    void aStuckListenerNeitherDelaysRequestsNorLosesCountOfWhatItMissed() throws Exception {
        CountDownLatch unstuck = new CountDownLatch(1);
        AtomicInteger heard = new AtomicInteger();
        int requests = 12_000;
        try (Sluice s = sluice(e -> {
            try {
                unstuck.await();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            heard.incrementAndGet();
        })) {
            // Every request is answered while the listener is stuck on the first event.
            for (int i = 0; i < requests; i++) admit(s, "k" + i);
            long dropped = s.stats().droppedDecisionEvents();
            // The queue holds 10 000 and the stuck thread one more: the rest is dropped, and counted.
            assertThat(dropped).isBetween((long) requests - 10_001, (long) requests - 10_000);
            unstuck.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (heard.get() + dropped < requests && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(heard.get() + dropped).isEqualTo(requests);
        }
    }

    @Test
    void closingTheHandleStopsTheListener() throws Exception {
        BlockingQueue<DecisionEvent> first = new LinkedBlockingQueue<>();
        BlockingQueue<DecisionEvent> second = new LinkedBlockingQueue<>();
        try (Sluice s = sluice(second::add)) {
            AutoCloseable handle = s.listen(first::add);
            admit(s, "a");
            assertThat(next(first).keyHash()).isEqualTo(KeyResolver.hash("a"));
            handle.close();
            admit(s, "b");
            // The listener still registered hears "b": by then the removed one would have heard it too.
            next(second);
            assertThat(next(second).keyHash()).isEqualTo(KeyResolver.hash("b"));
            assertThat(first).isEmpty();
        }
    }

    /** Registered through the test's service file: what a WAR does with META-INF/services. */
    public static final class ServiceLoaded implements DecisionListener {
        static final BlockingQueue<DecisionEvent> HEARD = new LinkedBlockingQueue<>();

        @Override
        public void onDecision(DecisionEvent event) {
            HEARD.add(event);
        }
    }

    @Test
    void aListenerRegisteredAsAServiceInTheApplicationsClassLoaderHearsDecisions(@TempDir Path dir) throws Exception {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(DecisionListener.class.getName()), ServiceLoaded.class.getName() + "\n");
        ServiceLoaded.HEARD.clear();
        try (URLClassLoader app = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
             Sluice s = Sluice.builder().properties(Map.of("sluice.rules.login.rate", "2/1m")).inMemory()
                     .clock(clock).ticker(clock).classLoader(app).build()) {
            admit(s, "x");
            assertThat(next(ServiceLoaded.HEARD).rule()).isEqualTo("login");
        }
    }

    @Test
    void withoutListenersNothingIsQueued() throws IOException {
        try (Sluice s = Sluice.builder().properties(Map.of("sluice.rules.login.rate", "2/1m")).inMemory()
                .clock(clock).ticker(clock).build()) {
            List<Thread> before = new ArrayList<>(Thread.getAllStackTraces().keySet());
            admit(s, "x");
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> !before.contains(t)
                    && t.getName().equals("sluice-decision-listeners"));
            assertThat(s.stats().droppedDecisionEvents()).isZero();
        }
    }
}
