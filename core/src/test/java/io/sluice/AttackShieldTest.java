package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.testing.CountingBackend;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The attack shield and the cost of decisions, counted in backend calls; time from a hand-driven clock. */
class AttackShieldTest {
    private final MutableClock clock = new MutableClock(1_000_000);
    private final CountingBackend backend = new CountingBackend(clock);

    private Sluice sluice(String... props) {
        Map<String, String> p = new java.util.HashMap<>();
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        return Sluice.builder().properties(p).backend(backend).clock(clock).ticker(clock).build();
    }

    private static CompletableFuture<Admission> admit(Sluice s, String rule, String key) {
        Rule r = s.rules().get(rule).orElseThrow();
        return s.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture();
    }

    @Test
    void anExhaustedKeyIsRejectedLocallyWithRetryAfterCountingDown() {
        Sluice s = sluice("sluice.rules.r.rate", "3/10s");
        for (int remaining = 2; remaining >= 0; remaining--) {
            assertThat(admit(s, "r", "hot").join().headline().orElseThrow().remaining()).isEqualTo(remaining);
        }
        assertThat(backend.calls.get()).isEqualTo(3);
        for (int second = 0; second < 10; second++) {
            for (int i = 0; i < 5; i++) {
                Decision d = admit(s, "r", "hot").join().rejection().orElseThrow();
                assertThat(d.remaining()).isZero();
                assertThat(d.limit()).isEqualTo(3);
                assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(10 - second));
                assertThat(d.reset()).isEqualTo(Duration.ofSeconds(10 - second));
                assertThat(d.retryAfterSeconds()).isEqualTo(10 - second);
            }
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(backend.calls.get()).as("no backend call while the key cannot have a permit").isEqualTo(3);
        assertThat(s.stats()).isEqualTo(new Stats(3, 0, 0, 0, 50));
        // Other keys are unaffected; at the retry-after the key is asked about again.
        assertThat(admit(s, "r", "cold").join().allowed()).isTrue();
        assertThat(admit(s, "r", "hot").join().headline().orElseThrow().remaining()).isEqualTo(2);
        assertThat(backend.calls.get()).isEqualTo(5);
    }

    @Test
    void eachServerAsksAtMostOncePerRetryAfterAboutAKeyAnotherServerExhausted() {
        Sluice a = sluice("sluice.rules.r.rate", "2/10s");
        Sluice b = sluice("sluice.rules.r.rate", "2/10s");
        admit(a, "r", "k").join();
        clock.advance(Duration.ofSeconds(4));
        admit(a, "r", "k").join();
        assertThat(backend.calls.get()).isEqualTo(2);
        Decision first = admit(b, "r", "k").join().rejection().orElseThrow();
        assertThat(first.retryAfter()).isEqualTo(Duration.ofSeconds(6));
        for (int i = 0; i < 20; i++) {
            clock.advance(Duration.ofMillis(250));
            Decision d = admit(b, "r", "k").join().rejection().orElseThrow();
            assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(6_000 - 250L * (i + 1)));
            assertThat(d.remaining()).isZero();
        }
        assertThat(backend.calls.get()).isEqualTo(3);
        clock.advance(Duration.ofSeconds(1));
        // The first entry (t=0) has left the window: one permit is free again, for one caller.
        assertThat(admit(b, "r", "k").join().allowed()).isTrue();
        assertThat(admit(b, "r", "k").join().allowed()).isFalse();
        assertThat(admit(a, "r", "k").join().allowed()).isFalse();
        assertThat(backend.calls.get()).as("b asks once and then knows; a asks once").isEqualTo(5);
    }

    @Test
    void concurrentCallersOfAKeyAreDecidedInOneCallAndAnExhaustedKeyCostsOneCallPerRetryAfter() {
        Sluice s = sluice("sluice.rules.r.rate", "1/10s");
        int callers = 64;
        int windows = 5;
        for (int w = 0; w < windows; w++) {
            backend.hold();
            List<CompletableFuture<Admission>> all = new ArrayList<>();
            for (int i = 0; i < callers; i++) all.add(admit(s, "r", "hot"));
            // One call is in flight; everyone else waits for it, queued, instead of asking too.
            assertThat(backend.calls.get()).isEqualTo(w + 1);
            assertThat(all).noneMatch(CompletableFuture::isDone);
            backend.open();
            List<Admission> done = all.stream().map(CompletableFuture::join).toList();
            assertThat(done.stream().filter(Admission::allowed).count()).isEqualTo(1);
            assertThat(done.stream().filter(a -> !a.allowed()).map(a -> a.rejection().orElseThrow()))
                    .hasSize(callers - 1)
                    .allSatisfy(d -> {
                        assertThat(d.remaining()).isZero();
                        assertThat(d.retryAfterSeconds()).isEqualTo(10);
                    });
            // Its answer took the last permit: the waiters are rejected here, without a call of their own.
            assertThat(backend.calls.get()).isEqualTo(w + 1);
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(backend.calls.get()).isEqualTo(windows);
        assertThat(backend.batches).isEmpty();
    }

    @Test
    void theCallersThatWaitedForACallRideTogetherInTheNextAndExactlyTheLimitIsAdmitted() {
        Sluice s = sluice("sluice.rules.r.rate", "3/10s");
        for (int i = 0; i < 3; i++) admit(s, "r", "hot").join();
        clock.advance(Duration.ofSeconds(10));
        backend.hold();
        List<CompletableFuture<Admission>> all = new ArrayList<>();
        for (int i = 0; i < 64; i++) all.add(admit(s, "r", "hot"));
        assertThat(backend.calls.get()).isEqualTo(4);
        backend.open();
        List<Admission> done = all.stream().map(CompletableFuture::join).toList();
        assertThat(done.stream().filter(Admission::allowed).count()).isEqualTo(3);
        // The first found 2 left after it; the next call carried the two waiters that may fit, and the shield
        // rejected the other 61 (nothing frees for 10 s).
        assertThat(backend.calls.get()).isEqualTo(5);
        assertThat(backend.batches).containsExactly(2);
        assertThat(done.subList(0, 3)).allMatch(Admission::allowed);
        assertThat(done.get(2).headline().orElseThrow().remaining()).isZero();
    }

    @Test
    void aRejectedCostlyRequestNeverShieldsACheaperOneThatFits() {
        Sluice s = sluice("sluice.rules.r.rate", "10/10s");
        for (int i = 0; i < 7; i++) assertThat(admit(s, "r", "k").join().allowed()).isTrue();
        // 3 remain, known from the last answer: cost 10 cannot fit and is rejected here, with what remains.
        Decision tooBig = admitCost(s, "k", 10).rejection().orElseThrow();
        assertThat(tooBig.remaining()).isEqualTo(3);
        assertThat(backend.calls.get()).isEqualTo(7);
        // Cost 1 fits and is asked for.
        assertThat(admitCost(s, "k", 1).allowed()).isTrue();
        assertThat(backend.calls.get()).isEqualTo(8);
        Decision again = admitCost(s, "k", 10).rejection().orElseThrow();
        assertThat(again.remaining()).isEqualTo(2);
        assertThat(again.retryAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(admitCost(s, "k", 3).allowed()).isFalse();
        assertThat(backend.calls.get()).as("cost 10 and 3 rejected locally").isEqualTo(8);
        assertThat(admitCost(s, "k", 2).allowed()).isTrue();
        assertThat(admitCost(s, "k", 1).allowed()).isFalse();
        assertThat(backend.calls.get()).isEqualTo(9);
        assertThat(s.stats().shieldedRejections()).isEqualTo(4);
    }

    @Test
    void aCostThatCanNeverFitIsDecidedByTheRuleNotTheShieldNorTheBackend() {
        Sluice s = sluice("sluice.rules.r.rate", "10/10s");
        for (int i = 0; i < 10; i++) admit(s, "r", "k").join();
        int before = backend.calls.get();
        long shielded = s.stats().shieldedRejections();
        for (int i = 0; i < 3; i++) assertThat(admitCost(s, "k", 11).rejection().orElseThrow().neverFits()).isTrue();
        assertThat(backend.calls.get()).as("never handed to a script").isEqualTo(before);
        assertThat(s.stats().shieldedRejections()).isEqualTo(shielded);
    }

    @Test
    void aTokenBucketKeyIsShieldedUntilItsNextTokenOnly() {
        Sluice s = sluice("sluice.rules.r.rate", "2/10s", "sluice.rules.r.algorithm", "token-bucket");
        assertThat(admit(s, "r", "k").join().allowed()).isTrue();
        assertThat(admit(s, "r", "k").join().allowed()).isTrue();
        Decision shielded = admit(s, "r", "k").join().rejection().orElseThrow();
        assertThat(shielded.retryAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(backend.calls.get()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(5));
        assertThat(admit(s, "r", "k").join().allowed()).as("a token every 5 s").isTrue();
        assertThat(admit(s, "r", "k").join().allowed()).isFalse();
        assertThat(backend.calls.get()).isEqualTo(3);
    }

    @Test
    void softAndElasticRulesAreNeverShielded() {
        Sluice s = sluice("sluice.rules.soft.rate", "10/10s", "sluice.rules.soft.throttling", "soft",
                "sluice.rules.soft.overage", "20%");
        int admitted = 0;
        for (int i = 0; i < 20; i++) if (admit(s, "soft", "k").join().allowed()) admitted++;
        assertThat(admitted).isEqualTo(12);
        assertThat(backend.calls.get()).as("every request asked the backend").isEqualTo(20);
    }

    private Admission admitCost(Sluice s, String key, long cost) {
        Rule r = s.rules().get("r").orElseThrow();
        return s.admit(List.of(r), KeySource.fixed(key).withCost(cost)).toCompletableFuture().join();
    }

    @Test
    void aFailedProbeLetsTheWaitersDecideByTheFailurePolicy() {
        Sluice s = sluice("sluice.rules.r.rate", "1/10s");
        admit(s, "r", "hot").join();
        clock.advance(Duration.ofSeconds(10));
        backend.down.set(true);
        List<Admission> done = new ArrayList<>();
        for (int i = 0; i < 3; i++) done.add(admit(s, "r", "hot").join());
        assertThat(done).allSatisfy(a -> {
            assertThat(a.allowed()).isTrue();
            assertThat(a.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);
        });
        backend.down.set(false);
        assertThat(admit(s, "r", "hot").join().allowed()).isTrue();
        assertThat(admit(s, "r", "hot").join().allowed()).isFalse();
    }

    @Test
    void closingAnAdmissionNeverWaitsForTheRelease() {
        Sluice s = sluice("sluice.rules.c.concurrency", "1", "sluice.rules.c.key", "global");
        Admission held = admit(s, "c", "x").join();
        assertThat(backend.calls.get()).as("one call in").isEqualTo(1);
        backend.hold();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> held.close());
        assertThat(backend.released.size()).isEqualTo(1);
        held.close();
        assertThat(backend.released.size()).as("released exactly once").isEqualTo(1);
        backend.open();
        assertThat(s.availablePermits(s.rules().get("c").orElseThrow(), "*").toCompletableFuture().join()).isEqualTo(1);
    }
}
