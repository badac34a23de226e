package io.sluice.engine;

import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.spi.Announcing;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import io.sluice.memory.InMemoryBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The divisor of {@code on-backend-failure=local}: 1 before any count was read, then the count last read from the
 * backend (kept when an announcement fails: the servers alive before the backend failed), and {@code sluice.local-share}
 * whatever the backend says. Announcements are what the backend gets: under the key prefix, gone after three heartbeats.
 */
class LiveServersTest {
    /** A backend other servers share, answering the count it is told to. */
    static final class Shared implements LimiterBackend, Announcing {
        final AtomicReference<CompletionStage<Integer>> answer = new AtomicReference<>(CompletableFuture.completedFuture(3));
        final List<String> announced = new CopyOnWriteArrayList<>();
        final InMemoryBackend memory = new InMemoryBackend(new MutableClock(0));

        @Override
        public CompletionStage<Integer> announce(String key, String serverId, Duration goneAfter) {
            announced.add(key + " " + goneAfter.toSeconds() + "s " + serverId.length());
            return answer.get();
        }

        @Override
        public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
            return memory.tryConsume(request);
        }

        @Override
        public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
            return memory.tryAcquire(request);
        }

        @Override
        public CompletionStage<Boolean> renew(LeaseRequest request, String permitId) {
            return memory.renew(request, permitId);
        }

        @Override
        public CompletionStage<Boolean> release(LeaseRequest request, String permitId) {
            return memory.release(request, permitId);
        }

        @Override
        public CompletionStage<Integer> available(LeaseRequest request) {
            return memory.available(request);
        }

        @Override
        public void close() {
        }
    }

    private static RuleSet rules(String... extra) {
        Map<String, String> p = new HashMap<>(Map.of("sluice.rules.r.rate", "10/1m", "sluice.rules.r.on-backend-failure", "local",
                "sluice.key-prefix", "app"));
        for (int i = 0; i < extra.length; i += 2) p.put(extra[i], extra[i + 1]);
        return RuleParser.parse(p);
    }

    @Test
    void aloneUntilACountIsReadThenTheCountLastRead() {
        Shared backend = new Shared();
        RuleSet rules = rules();
        LiveServers servers = new LiveServers(backend, rules.settings().keyPrefix(), () -> rules);
        assertThat(servers.divisor()).isOne();
        assertThat(servers.announce().toCompletableFuture().join()).isEqualTo(3);
        assertThat(servers.divisor()).isEqualTo(3);
        assertThat(backend.announced).containsExactly("app:servers 15s 32");

        // The backend fails: the count read before it failed stays the divisor.
        backend.answer.set(CompletableFuture.failedFuture(new IllegalStateException("down")));
        assertThatThrownBy(() -> servers.announce().toCompletableFuture().join()).hasRootCauseMessage("down");
        assertThat(servers.divisor()).isEqualTo(3);
        backend.answer.set(CompletableFuture.completedFuture(5));
        servers.announce().toCompletableFuture().join();
        assertThat(servers.divisor()).isEqualTo(5);
    }

    @Test
    void aFixedLocalShareWinsAndNeedsNoAnnouncement() {
        Shared backend = new Shared();
        RuleSet rules = rules("sluice.local-share", "4");
        LiveServers servers = new LiveServers(backend, rules.settings().keyPrefix(), () -> rules);
        servers.announce().toCompletableFuture().join();
        assertThat(servers.divisor()).isEqualTo(4);
    }

    @Test
    void aBackendNoOtherServerSharesLeavesThisServerAlone() {
        RuleSet rules = rules();
        LiveServers inMemory = new LiveServers(new InMemoryBackend(), "app", () -> rules);
        assertThat(inMemory.announce().toCompletableFuture().join()).isOne();
        assertThat(inMemory.divisor()).isOne();
    }

    @Test
    void aHeartbeatAnnouncesOnlyWhileARuleIsLocalAndTheShareIsNotFixed() {
        for (RuleSet rules : List.of(RuleParser.parse(Map.of("sluice.rules.r.rate", "10/1m")), rules("sluice.local-share", "2"))) {
            Shared backend = new Shared();
            new LiveServers(backend, "app", () -> rules).heartbeat();
            assertThat(backend.announced).isEmpty();
        }
        Shared backend = new Shared();
        RuleSet local = rules();
        new LiveServers(backend, "app", () -> local).heartbeat();
        assertThat(backend.announced).hasSize(1);
    }

    @Test
    void theEngineAnnouncesItselfAtStart() {
        Shared backend = new Shared();
        MutableClock clock = new MutableClock(0);
        try (Engine engine = new Engine(rules(), null, null, backend, clock, clock, Optional.empty(), false)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.servers().lastSeen() == 3);
            assertThat(engine.servers().divisor()).isEqualTo(3);
        }
    }
}
