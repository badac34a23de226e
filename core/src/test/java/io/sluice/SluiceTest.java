package io.sluice;

import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.Rule;
import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The evaluation rules of the contract, on the in-memory backend with a hand-driven clock. */
class SluiceTest {
    private final MutableClock clock = new MutableClock(1_000_000);

    private Sluice sluice(String... props) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        return Sluice.builder().properties(p).inMemory().clock(clock).ticker(clock).build();
    }

    private static Admission admit(Sluice s, KeySource keys, String... rules) {
        List<Rule> list = java.util.Arrays.stream(rules).map(n -> s.rules().get(n).orElseThrow()).toList();
        return s.admit(list, keys).toCompletableFuture().join();
    }

    @Test
    void closeReturnsOnlyOnceItsOwnThreadHasEnded() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        Sluice s = sluice("sluice.rules.a.rate", "1/s");
        List<Thread> started = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.getName().equals("sluice-scheduler")).toList();
        assertThat(started).hasSize(1);
        s.close();
        // What Tomcat checks when it undeploys an application: a thread left running is reported as a leak.
        assertThat(started.get(0).isAlive()).isFalse();
    }

    @Test
    void theBuilderRefusesTwoBackendsNamingBoth() {
        Map<String, String> p = Map.of("sluice.rules.a.rate", "1/s");
        assertThatThrownBy(() -> Sluice.builder().properties(p).inMemory().backend(new InMemoryBackend(clock)).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("choose one backend: backend(...) or inMemory(); got backend(...) and inMemory()");
        assertThatThrownBy(() -> Sluice.builder().inMemory().build())
                .isInstanceOf(IllegalStateException.class).hasMessage("rules, properties, config or source are required");
    }

    @Test
    void withoutABackendOrAProviderOnTheClassPathTheBuilderSaysWhatToAdd() {
        // sluice-core's own class path has no BackendProvider registered: sluice-redisson is not on it.
        assertThatThrownBy(() -> Sluice.builder().properties(Map.of("sluice.rules.a.rate", "1/s")).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no backend: add sluice-redisson to the class path for Redis, or give one with backend(...) "
                        + "or inMemory()");
    }

    @Test
    void rateRulesComeFirstAndTheFirstRejectionReturnsPermitsAlreadyTaken() {
        Sluice s = sluice(
                "sluice.rules.a-conc.concurrency", "1", "sluice.rules.a-conc.key", "global",
                "sluice.rules.b-rate.rate", "1/1m", "sluice.rules.b-rate.key", "global",
                "sluice.rules.c-conc.concurrency", "1", "sluice.rules.c-conc.key", "global");
        Admission first = admit(s, KeySource.fixed("x"), "a-conc", "b-rate", "c-conc");
        assertThat(first.allowed()).isTrue();
        assertThat(first.decisions()).extracting(Decision::ruleName).containsExactly("b-rate", "a-conc", "c-conc");
        first.close();
        // The rate rule rejects before any concurrency permit is taken.
        Admission second = admit(s, KeySource.fixed("x"), "a-conc", "b-rate", "c-conc");
        assertThat(second.allowed()).isFalse();
        assertThat(second.rejection().orElseThrow().ruleName()).isEqualTo("b-rate");
        assertThat(second.decisions()).hasSize(1);
        assertThat(s.availablePermits(s.rules().get("a-conc").get(), "*").toCompletableFuture().join()).isEqualTo(1);
    }

    @Test
    void aLaterConcurrencyRejectionReleasesTheEarlierPermit() {
        Sluice s = sluice(
                "sluice.rules.a.concurrency", "2", "sluice.rules.a.key", "global",
                "sluice.rules.b.concurrency", "1", "sluice.rules.b.key", "global");
        Admission holder = admit(s, KeySource.fixed("x"), "b");
        Admission rejected = admit(s, KeySource.fixed("x"), "a", "b");
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.rejection().orElseThrow().ruleName()).isEqualTo("b");
        assertThat(s.availablePermits(s.rules().get("a").get(), "*").toCompletableFuture().join()).isEqualTo(2);
        holder.close();
        holder.close();
        assertThat(s.availablePermits(s.rules().get("b").get(), "*").toCompletableFuture().join()).isEqualTo(1);
    }

    @Test
    void rejectionCarriesRetryAfterNeverEarlierThanTheReset() {
        Sluice s = sluice("sluice.rules.r.rate", "2/10s");
        admit(s, KeySource.fixed("k"), "r").close();
        clock.advance(Duration.ofMillis(2500));
        admit(s, KeySource.fixed("k"), "r").close();
        Admission rejected = admit(s, KeySource.fixed("k"), "r");
        Decision d = rejected.rejection().orElseThrow();
        assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(7500));
        assertThat(d.retryAfterSeconds()).isEqualTo(8);
        assertThat(d.resetSeconds()).isEqualTo(8);
        assertThatThrownBy(rejected::orThrow).isInstanceOfSatisfying(LimitExceededException.class, e -> {
            assertThat(e.rule()).isEqualTo("r");
            assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(8));
            assertThat(e.limit()).isEqualTo(2);
            assertThat(e.remaining()).isZero();
        });
    }

    @Test
    void theHeadlineIsTheMostRestrictiveRateDecision() {
        Sluice s = sluice("sluice.rules.loose.rate", "100/1m", "sluice.rules.tight.rate", "3/1h");
        Admission a = admit(s, KeySource.fixed("k"), "loose", "tight");
        assertThat(a.headline().orElseThrow().ruleName()).isEqualTo("tight");
        assertThat(a.headline().get().remaining()).isEqualTo(2);
    }

    @Test
    void dryRunDecidesButNeverRejects() {
        Sluice s = sluice("sluice.rules.d.rate", "1/1m", "sluice.rules.d.mode", "dry-run");
        assertThat(admit(s, KeySource.fixed("k"), "d").allowed()).isTrue();
        Admission second = admit(s, KeySource.fixed("k"), "d");
        assertThat(second.allowed()).isTrue();
        assertThat(second.decisions().get(0).dryRunRejection()).isTrue();
        assertThat(second.headline().orElseThrow().remaining()).isZero();
    }

    @Test
    void aMissingKeySkipsOrDeniesAsTheRuleSays() {
        Sluice s = sluice("sluice.rules.skip.rate", "1/1m", "sluice.rules.skip.key", "user",
                "sluice.rules.deny.rate", "1/1m", "sluice.rules.deny.key", "user", "sluice.rules.deny.on-missing-key", "deny");
        KeySource anonymous = rule -> null;
        Admission skipped = admit(s, anonymous, "skip");
        assertThat(skipped.allowed()).isTrue();
        assertThat(skipped.decisions()).isEmpty();
        Admission denied = admit(s, anonymous, "deny");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.MISSING_KEY);
        assertThat(denied.rejection().get().hasCounts()).isFalse();
    }

    @Test
    void aFailingBackendFollowsEachRulesFailurePolicy() {
        LimiterBackend broken = new LimiterBackend() {
            @Override
            public CompletionStage<RateOutcome> tryConsume(RateRequest request) {
                return CompletableFuture.failedFuture(new IllegalStateException("redis down"));
            }

            @Override
            public CompletionStage<LeaseOutcome> tryAcquire(LeaseRequest request) {
                return new CompletableFuture<>(); // never answers: the deadline must
            }

            @Override
            public CompletionStage<Boolean> renew(LeaseRequest request, String permitId) {
                return CompletableFuture.completedFuture(false);
            }

            @Override
            public CompletionStage<Boolean> release(LeaseRequest request, String permitId) {
                return CompletableFuture.completedFuture(false);
            }

            @Override
            public CompletionStage<Integer> available(LeaseRequest request) {
                return CompletableFuture.completedFuture(0);
            }

            @Override
            public void close() {
            }
        };
        Map<String, String> p = Map.of("sluice.backend-timeout", "50ms",
                "sluice.rules.open.rate", "1/1m",
                "sluice.rules.closed.rate", "1/1m", "sluice.rules.closed.on-backend-failure", "deny",
                "sluice.rules.slow.concurrency", "1");
        Sluice s = Sluice.builder().properties(p).backend(broken).build();
        Admission open = admit(s, KeySource.fixed("k"), "open");
        assertThat(open.allowed()).isTrue();
        assertThat(open.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        assertThat(open.headline()).isEmpty();
        Admission closed = admit(s, KeySource.fixed("k"), "closed");
        assertThat(closed.allowed()).isFalse();
        assertThat(closed.rejection().orElseThrow().retryAfterSeconds()).isEqualTo(1);
        Admission timedOut = admit(s, KeySource.fixed("k"), "slow");
        assertThat(timedOut.allowed()).isTrue();
        assertThat(timedOut.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
    }

    @Test
    void afterRepeatedFailuresTheBackendIsSkippedUntilAProbeSucceeds() {
        io.sluice.testing.CountingBackend flaky = new io.sluice.testing.CountingBackend(clock);
        java.util.concurrent.atomic.AtomicInteger calls = flaky.calls;
        java.util.concurrent.atomic.AtomicBoolean down = flaky.down;
        down.set(true);
        Sluice s = Sluice.builder().properties(Map.of("sluice.rules.r.rate", "2/1m",
                "sluice.rules.c.concurrency", "1", "sluice.rules.c.on-backend-failure", "deny"))
                .backend(flaky).clock(clock).ticker(clock).build();
        for (int i = 0; i < 5; i++) assertThat(admit(s, KeySource.fixed("k"), "r").allowed()).isTrue();
        assertThat(calls.get()).isEqualTo(5);
        for (int i = 0; i < 50; i++) {
            Admission open = admit(s, KeySource.fixed("k"), "r");
            assertThat(open.allowed()).isTrue();
            assertThat(open.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
            // Each rule keeps its own policy while the circuit is open.
            assertThat(admit(s, KeySource.fixed("k"), "c").allowed()).isFalse();
        }
        assertThat(calls.get()).as("no backend call while the circuit is open").isEqualTo(5);
        assertThat(s.stats()).isEqualTo(new Stats(5, 55, 50, 100, 0));
        clock.advance(Duration.ofMillis(1_000));
        admit(s, KeySource.fixed("k"), "r");
        assertThat(calls.get()).as("one probe after the cool-down").isEqualTo(6);
        admit(s, KeySource.fixed("k"), "r");
        assertThat(calls.get()).isEqualTo(6);
        down.set(false);
        clock.advance(Duration.ofMillis(1_000));
        Admission probe = admit(s, KeySource.fixed("k"), "r");
        assertThat(probe.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED);
        assertThat(probe.decisions().get(0).remaining()).isEqualTo(1);
        assertThat(admit(s, KeySource.fixed("k"), "r").decisions().get(0).remaining()).isZero();
        assertThat(admit(s, KeySource.fixed("k"), "r").allowed()).isFalse();
        // The last permit's taker learned the key is exhausted: the rejection above was answered locally.
        assertThat(calls.get()).isEqualTo(8);
    }

    @Test
    void aRequestNoRuleAppliesToIsAdmittedWithoutDecisions() {
        Sluice s = Sluice.builder().properties(Map.of("sluice.rules.r.rate", "1/1m")).backend(new InMemoryBackend(clock)).build();
        Admission a = s.admit(List.of(), KeySource.fixed("k")).toCompletableFuture().join();
        assertThat(a.allowed()).isTrue();
        assertThat(a.headline()).isEmpty();
    }
}
